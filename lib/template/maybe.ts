/**
 * Values that may still be on their way. A template function may return a
 * Promise; the executor carries it as is and waits only where the value is
 * needed. Everything here stays synchronous when nothing is a Promise, so a
 * template that calls no async function never touches the microtask queue.
 */
export type Maybe<T> = T | Promise<T>

export function isPromise(v: unknown): v is Promise<unknown> {
  return v instanceof Promise
}

/** Runs `f` on the value now, or once it arrives. */
export function andThen<T, U>(v: Maybe<T>, f: (value: T) => Maybe<U>): Maybe<U> {
  return isPromise(v) ? v.then(f) : f(v as T)
}

/** Calls `step(i)` for i = from..n-1 in order, waiting between steps only when a step has to; stops on a non-undefined result. */
export function loop<R>(from: number, n: number, step: (i: number) => Maybe<R | undefined>): Maybe<R | undefined> {
  for (let i = from; i < n; i++) {
    const r = step(i)
    if (isPromise(r)) return r.then((done) => (done === undefined ? loop(i + 1, n, step) : done))
    if (r !== undefined) return r
  }
  return undefined
}

/** Marks a Promise whose failure is reported elsewhere, so that dropping it is not an unhandled rejection. */
export function handled(p: Promise<unknown>): void {
  p.catch(() => {})
}

/**
 * Whether a function the caller supplies returned something to wait for (a
 * Promise, or any thenable): an object or function with a `then` method, as
 * a Promise judges it (a primitive is a value, whatever its prototype holds).
 */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown } | null)?.then === 'function'
  )
}
