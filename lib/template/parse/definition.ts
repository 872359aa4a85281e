/**
 * What the parser knows of the template it is in (Go's Tree fields that
 * parsing uses): its name, the variables in scope, range nesting, and what
 * it names, kept with the tree for the analysis.
 */
import { DOLLAR } from './nodes'

/**
 * Per-template parsing state: the name being defined, the variables in
 * scope, range nesting, and what the template names: functions, and
 * templates it calls.
 */
export interface Definition {
  name: string
  vars: Scope
  rangeDepth: number
  readonly functions: Set<string>
  readonly calls: Set<string>
}

export function newDefinition(name: string): Definition {
  return { name, vars: new Scope(), rangeDepth: 0, functions: new Set(), calls: new Set() }
}

/**
 * The variables in scope while parsing a definition, by id: a stack, popped
 * at each {{end}}, and how many of each it holds, so that checking a use
 * takes no scan of the stack.
 */
export class Scope {
  readonly #stack: number[] = [DOLLAR]
  readonly #count = new Map<number, number>([[DOLLAR, 1]])

  get mark(): number {
    return this.#stack.length
  }

  push(id: number): void {
    this.#stack.push(id)
    this.#count.set(id, (this.#count.get(id) ?? 0) + 1)
  }

  pop(mark: number): void {
    while (this.#stack.length > mark) {
      const id = this.#stack.pop() as number
      this.#count.set(id, (this.#count.get(id) as number) - 1)
    }
  }

  has(id: number): boolean {
    return (this.#count.get(id) ?? 0) > 0
  }
}

/** Variable names as numbers (VariableNode.id), one for each name of a text, `$` being DOLLAR. */
export class VariableIds {
  readonly #ids = new Map<string, number>([['$', DOLLAR]])

  /** The id of variable `name`, the same for each of its uses. */
  of(name: string): number {
    let id = this.#ids.get(name)
    if (id === undefined) {
      id = this.#ids.size
      this.#ids.set(name, id)
    }
    return id
  }
}
