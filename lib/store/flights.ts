/**
 * Redis reads in flight, shared by the requests of one isolate. When a cached
 * entry expires under load, every render in flight misses it at the same
 * moment; without this each would send its own read, and that burst at every
 * 5-second expiry pushed renders past their deadline. With it, the first miss
 * reads and the others wait for its answer.
 *
 * A flight belongs to the request that started it. workerd delivers its result
 * to every request awaiting it, but if the starting request is cancelled its
 * read never settles. So a flight is joined only until its time limit, the
 * longest a read can take before it fails on its own, and a request that
 * joined it waits no longer than that before reading for itself.
 */
interface Flight {
  promise: Promise<unknown>
  /** Date.now() when the read was sent. */
  started: number
  /** Date.now() after which the read has failed or been abandoned. */
  until: number
}

const flights = new Map<string, Flight>()

/** Thrown to a joiner when the request it waited on was cancelled and its read will never answer. */
export class AbandonedFlight extends Error {
  constructor(readonly id: string) {
    super(`the read of ${id} was abandoned`)
    this.name = 'AbandonedFlight'
  }
}

/** Whether a live read of `id`, sent at `since` or later, is in flight. */
export function inFlight(id: string, since = -Infinity): boolean {
  const flight = flights.get(id)
  return flight !== undefined && Date.now() < flight.until && flight.started >= since
}

/**
 * Waits for the read of `id` in flight (see `inFlight`): its value, its error,
 * or AbandonedFlight once its time limit has passed.
 */
export async function join<T>(id: string): Promise<T> {
  const flight = flights.get(id)
  const left = flight ? flight.until - Date.now() : 0
  if (!flight || left <= 0) throw new AbandonedFlight(id)
  let timer: ReturnType<typeof setTimeout> | undefined
  const abandoned = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AbandonedFlight(id)), left)
  })
  try {
    return (await Promise.race([flight.promise, abandoned])) as T
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Starts one read of several ids and registers a flight for each, so that
 * later misses of any of them join it. `read` answers in the order of `ids`.
 */
export function fly<T>(ids: readonly string[], limitMs: number, read: () => Promise<T[]>): Promise<T>[] {
  const started = Date.now()
  const batch = read()
  const until = started + limitMs
  return ids.map((id, i) => {
    const promise = batch.then((values) => values[i] as T)
    const flight = { promise, started, until }
    flights.set(id, flight)
    const land = () => {
      if (flights.get(id) === flight) flights.delete(id)
    }
    promise.then(land, land)
    return promise
  })
}
