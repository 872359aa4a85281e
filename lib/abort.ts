/** Waits for `p`, or rejects with the signal's reason as soon as it aborts: a deadline on any wait. */
export function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/**
 * A turn for the isolate's other work: a timer of 0 ms, whose wait lets
 * every callback due before it run (another request's I/O, a deadline).
 * Taken between long pieces of CPU work, so that one request's megabytes
 * hold up no other request for longer than one piece.
 */
export function turn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/** Reads between two turns of the timers: a turn costs a timer, and 64 reads are little work. */
const READS_PER_TURN = 64

/**
 * Gives workerd's timers a turn every READS_PER_TURN reads of a stream.
 * While a server sends without pause, every read is answered from what has
 * already arrived and the event loop never reaches its timers: a deadline
 * (AbortSignal.timeout, setTimeout) would not fire until the sender
 * stopped, 16-byte chunks of a megabyte took seconds past it. Awaiting a
 * timer of 0 ms lets the loop fire every timer due before it.
 */
export class TimerTurns {
  #reads = 0

  /** After a read: undefined, or every READS_PER_TURN reads a promise of the timers' turn. */
  next(): Promise<void> | undefined {
    return ++this.#reads % READS_PER_TURN === 0 ? turn() : undefined
  }
}
