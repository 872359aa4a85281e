/**
 * The variables in scope during an execution (Go's state.vars): a stack,
 * searched from its top as Go searches it. A template may declare
 * thousands, so each search is counted in the step budget by the variables
 * it passes, and so is each copy (for work rendered aside). Names are the
 * numbers the parser gave them (VariableNode.id): a search compares numbers.
 */
import { CHARS_PER_STEP, VARIABLE_COPY_COST, VARIABLE_SCAN_COST } from '../costs'
import type { Maybe } from './maybe'
import type { Work } from './run'
import type { Value } from '../value'

/** A value and whether Go would hold it as an interface{} (a map or slice element), which error messages show. */
export interface Slot {
  value: Maybe<Value>
  wrapped: boolean
}

export interface Variable extends Slot {
  readonly id: number
}

/** Searches passing fewer variables cost nothing beyond their node's step (as short strings do). */
const SCAN_COUNTED = CHARS_PER_STEP / VARIABLE_SCAN_COST

export class Variables {
  constructor(
    private readonly work: Pick<Work, 'charge'>,
    private readonly stack: Variable[],
  ) {}

  /** Where the stack stands, to pop back to. */
  get mark(): number {
    return this.stack.length
  }

  push(id: number, value: Maybe<Value>, wrapped = false): void {
    this.stack.push({ id, value, wrapped })
  }

  pop(mark: number): void {
    // Setting an array's length costs a call into the engine even when it changes nothing.
    if (this.stack.length > mark) this.stack.length = mark
  }

  /** The innermost variable `id`, if one is in scope. */
  find(id: number): Variable | undefined {
    const stack = this.stack
    let i = stack.length - 1
    while (i >= 0 && (stack[i] as Variable).id !== id) i--
    const passed = stack.length - i
    // Most searches pass a few variables: too few to count.
    if (passed >= SCAN_COUNTED) this.work.charge(VARIABLE_SCAN_COST * passed)
    return stack[i]
  }

  /** The variable `depth` below the top (0: the top), as range sets its element and index. */
  top(depth: number): Variable {
    return this.stack[this.stack.length - 1 - depth] as Variable
  }

  /** A copy to go on with elsewhere, as variables stand now. */
  copy(): Variables {
    this.work.charge(VARIABLE_COPY_COST * this.stack.length)
    return new Variables(
      this.work,
      this.stack.map((v) => ({ ...v })),
    )
  }
}
