/**
 * What one flow of an execution writes (the main walk and the templates it
 * calls, or a branch rendered aside): strings, and pieces still pending on
 * async calls, each written in its place as it arrives.
 *
 * Pending work is weighed (operations waiting on a value, pieces, branches
 * rendered aside, the variables copied for them): each flow knows the weight
 * of its own, the Run that of all. Past MAX_PENDING in all, a flow holding
 * pending work waits for half of its own to arrive before it walks on
 * (backpressure), so that however many calls a template makes, an execution
 * holds a bounded number of pending things. A flow waits only for work it
 * started, which never waits for the flow itself: no two flows can wait for
 * each other.
 */
import { MAX_PENDING } from '../costs'
import { isPromise } from './maybe'
import type { Maybe } from './maybe'
import type { Run } from './run'

export type Piece = string | Promise<string>

export class Output {
  /** What was written since the last pending piece, or everything while none is: most executions have none. */
  #text = ''
  /** Everything before #text, once a piece is pending. */
  #parts: Piece[] | undefined
  /** The weight of this flow's pending work. */
  #held = 0
  /** The walk waiting for this flow's pending work to weigh `until` or less. */
  #waiting: { until: number; resume: () => void } | undefined

  constructor(private readonly run: Run) {}

  write(s: string): void {
    this.#text += s
  }

  /**
   * A piece that `arrive` makes once `value` arrives, weighing `weight`
   * until then; its string then takes its place. A failure stays in place
   * for the join to report.
   */
  pend<T>(value: Promise<T>, arrive: (v: T) => Maybe<string>, weight: number): void {
    const parts = (this.#parts ??= [])
    parts.push(this.#text)
    this.#text = ''
    const i = parts.length
    const piece = value.then(arrive)
    parts.push(piece)
    this.#hold(weight)
    piece.then(
      (s) => {
        parts[i] = s
        this.#release(weight)
      },
      () => this.#release(weight),
    )
  }

  /** Pending work that writes nothing (a value kept in a variable or given to a template), weighed until it settles. */
  hold(value: Promise<unknown>, weight: number): void {
    this.#hold(weight)
    const release = (): void => this.#release(weight)
    // Its failure, if it matters, is reported by whatever reads it, or by the call that made it.
    value.then(release, release)
  }

  /**
   * What the walk must wait for before going on, when the execution holds
   * MAX_PENDING or more: half of this flow's pending work.
   */
  backpressure(): Promise<void> | undefined {
    if (this.run.pending < MAX_PENDING || this.#held === 0) return undefined
    return new Promise((resume) => {
      this.#waiting = { until: this.#held >> 1, resume }
    })
  }

  /** Everything written, once the pieces still pending have arrived. */
  join(): Maybe<string> {
    const parts = this.#parts
    if (!parts) return this.#text
    parts.push(this.#text)
    this.#text = ''
    return parts.some(isPromise) ? Promise.all(parts).then((p) => p.join('')) : (parts as string[]).join('')
  }

  #hold(weight: number): void {
    this.#held += weight
    this.run.pending += weight
  }

  #release(weight: number): void {
    this.#held -= weight
    this.run.pending -= weight
    const waiting = this.#waiting
    if (waiting && this.#held <= waiting.until) {
      this.#waiting = undefined
      waiting.resume()
    }
  }
}
