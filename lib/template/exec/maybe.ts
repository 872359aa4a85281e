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
