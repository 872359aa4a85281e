/**
 * The limits an execution may reach, and the JS engine's own failures that
 * stand for them: shared by fmt, the parser, the executor and the helpers,
 * which know no node (the executor places what they throw).
 */

/** The ExecuteOptions field that bounded an execution. */
export type Limit = 'maxOutput' | 'maxDepth' | 'maxDataDepth'

/** A limit reached below the executor (fmt, builtins), which knows no node: the executor places it. */
export class LimitReached extends Error {
  constructor(
    readonly limit: Limit,
    message: string,
  ) {
    super(message)
  }
}

/** A string a builtin or fmt would build is longer than the output could ever be. */
export function tooLong(maxOutput: number): LimitReached {
  return new LimitReached('maxOutput', `the result would exceed the output limit of ${maxOutput} characters`)
}

/** Whether `e` is the JS engine running out of stack. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message)
}

/**
 * Whether `e` is the JS engine refusing to make a value that large: a
 * string longer than it can hold, or memory it cannot allocate. Any other
 * RangeError ("Invalid count value", ...) is a bug, and stays one.
 */
export function isTooLarge(e: unknown): e is RangeError {
  return e instanceof RangeError && /^Invalid string length|allocation failed/i.test(e.message)
}
