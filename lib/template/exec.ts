/**
 * The executor: Go's text/template exec.go, walking the immutable tree with
 * per-execution state (variables, output, depth) kept apart from it.
 *
 * Functions may return Promises. Operands and variables are read eagerly, in
 * template order; only what needs a pending value waits for it:
 *  - a printed value becomes a pending piece of output, joined at the end;
 *  - an if/range/with whose pipeline is pending is forked when its body
 *    cannot affect what follows (no `=` to outer variables, no break or
 *    continue leaving it): it renders into its own piece while the walk goes on;
 *  - otherwise the walk itself waits, and resumes where it stopped.
 * When nothing is pending, no Promise is created at all.
 */
import { BUILTINS } from './builtins'
import type { Builtin } from './builtins'
import { formatValue, sprintf } from './fmt'
import { allThen, andThen, isPromise, loop } from './maybe'
import type { Maybe } from './maybe'
import type {
  ArgNode,
  BranchNode,
  ChainNode,
  CommandNode,
  FieldNode,
  IdentifierNode,
  ListNode,
  Node,
  NumberNode,
  PipeNode,
  TemplateNode,
  VariableNode,
} from './nodes'
import { nodeString } from './nodes'
import { ExecError, lastEvaluated, location } from './errors'
import { forkable } from './fork'
import type { Tree } from './parser'
import { isMap, isTrue, mapHas, sortedKeys, typeName } from './value'
import type { Value } from './value'
import { EMPTY } from './value'

/** A function the caller supplies; it may return a Promise. */
export type TemplateFunction = (...args: Value[]) => Maybe<Value>

export type MissingKey = 'default' | 'zero' | 'error'

export interface ExecOptions {
  funcs: ReadonlyMap<string, TemplateFunction>
  missingKey: MissingKey
  signal: AbortSignal | undefined
  /** Output longer than this many characters is an error. */
  maxOutput: number
  /** Nested {{template}} calls deeper than this are an error. */
  maxDepth: number
  /** Date.now() past which execution stops with a TimeoutError, pending or not. */
  deadline: number | undefined
  /** Nodes and range iterations at most, then a TimeoutError: a budget no clock can miss. */
  maxSteps: number
}

type Signal = 'break' | 'continue' | undefined
type Piece = string | Promise<string>

/** A value and whether Go would hold it as an interface{} (a map or slice element), which error messages show. */
interface Slot {
  value: Maybe<Value>
  wrapped: boolean
}

interface Variable extends Slot {
  name: string
}

/** No final (piped-in) argument: Go's missingVal. */
const NO_FINAL: unique symbol = Symbol('no final argument')
type Final = Maybe<Value> | typeof NO_FINAL

/** What one execution shares across its states: options, the template set, ordering, calls in flight. */
export class Run {
  #seq = 0
  readonly inflight: Promise<unknown>[] = []
  outputLength = 0
  steps = 0

  constructor(
    readonly templates: ReadonlyMap<string, Tree>,
    readonly options: ExecOptions,
  ) {}

  nextSeq(): number {
    return ++this.#seq
  }
}

/** Go's `state`: where an execution is, and what it has written. */
export class State {
  #localSeq = 0

  constructor(
    readonly run: Run,
    readonly tree: Tree,
    readonly vars: Variable[],
    readonly depth: number,
    readonly out: Piece[],
    /** Inside a fork: the place in execution order of the fork itself. */
    readonly seqBase?: number,
  ) {}

  #nextSeq(): number {
    return this.seqBase === undefined ? this.run.nextSeq() : this.seqBase + ++this.#localSeq / 1e6
  }

  // Errors.

  /** An ExecError at `node`, with Go's location and context. */
  error(node: Node | undefined, detail: string, seq: number = this.#nextSeq()): ExecError {
    const name = this.tree.name
    if (!node) return new ExecError(name, 0, 0, detail, `template: ${name}: ${detail}`, seq)
    const { line, column } = location(this.tree.text, node.pos)
    const message = `template: ${this.tree.parseName}:${line}:${column}: executing ${sprintf('%q', [name])} at <${nodeString(node)}>: ${detail}`
    return new ExecError(name, line, column, detail, message, seq)
  }

  /**
   * Stops a cancelled or overdue execution. A synchronous walk never lets a
   * timer fire, and deployed Workers' clock stands still during CPU work, so
   * a step budget bounds the work too; the clock is read every 256 steps.
   */
  #check(): void {
    const { signal, deadline, maxSteps } = this.run.options
    if (signal?.aborted) throw signal.reason
    const steps = ++this.run.steps
    if (steps > maxSteps) throw new DOMException(`the execution took more than ${maxSteps} steps`, 'TimeoutError')
    if (deadline !== undefined && (steps & 255) === 0 && Date.now() > deadline) {
      throw new DOMException('the execution passed its deadline', 'TimeoutError')
    }
  }

  // Output.

  #write(piece: Piece): void {
    if (isPromise(piece)) handled(piece)
    else {
      this.run.outputLength += piece.length
      if (this.run.outputLength > this.run.options.maxOutput) {
        throw this.error(undefined, `output exceeds the limit of ${this.run.options.maxOutput} characters`)
      }
    }
    this.out.push(piece)
  }

  // Variables.

  #push(name: string, value: Maybe<Value>, wrapped = false): void {
    this.vars.push({ name, value, wrapped })
  }

  #pop(mark: number): void {
    this.vars.length = mark
  }

  #setVar(node: Node, name: string, value: Maybe<Value>): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i] as Variable
      if (v.name === name) {
        v.value = value
        v.wrapped = false
        return
      }
    }
    throw this.error(node, `undefined variable: ${name}`)
  }

  #varSlot(node: Node, name: string): Slot {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i] as Variable
      if (v.name === name) return v
    }
    throw this.error(node, `undefined variable: ${name}`)
  }

  // Walking.

  walk(dot: Slot, node: Node): Maybe<Signal> {
    this.#check()
    switch (node.type) {
      case 'action': {
        const value = this.#evalPipeline(dot, node.pipe)
        if (node.pipe.decl.length === 0) {
          this.#write(isPromise(value) ? value.then(printValue) : printValue(value as Value))
        }
        return undefined
      }
      case 'break':
      case 'continue':
        return node.type
      case 'comment':
        return undefined
      case 'if':
      case 'with':
      case 'range':
        return this.#walkBranch(dot, node)
      case 'list':
        return this.walkList(dot, node)
      case 'template':
        return this.#walkTemplate(dot, node)
      case 'text':
        this.#write(node.text)
        return undefined
      default:
        throw this.error(node, `unknown node: ${nodeString(node)}`)
    }
  }

  walkList(dot: Slot, list: ListNode): Maybe<Signal> {
    return loop<Exclude<Signal, undefined>>(0, list.nodes.length, (i) => this.walk(dot, list.nodes[i] as Node))
  }

  /** if, with and range: evaluate the pipeline, then walk a list, waiting or forking if it is pending. */
  #walkBranch(dot: Slot, node: BranchNode): Maybe<Signal> {
    const mark = this.vars.length
    const value = this.#evalPipeline(dot, node.pipe)
    if (!isPromise(value)) return this.#finally(this.#branchOn(dot, node, value as Value), mark)
    if (!forkable(node)) return value.then((v) => this.#finally(this.#branchOn(dot, node, v), mark))
    // The body cannot change what follows: render it aside, in place, and go on.
    const fork = new State(
      this.run,
      this.tree,
      this.vars.map((v) => ({ ...v })),
      this.depth,
      [],
      this.#nextSeq(),
    )
    this.#pop(mark)
    this.#write(value.then((v) => andThen(fork.#branchOn(dot, node, v), () => joinPieces(fork.out))))
    return undefined
  }

  #finally(signal: Maybe<Signal>, mark: number): Maybe<Signal> {
    return andThen(signal, (s) => {
      this.#pop(mark)
      return s
    })
  }

  #branchOn(dot: Slot, node: BranchNode, value: Value): Maybe<Signal> {
    if (node.type === 'range') return this.#walkRange(dot, node, value)
    if (isTrue(value)) return this.walkList(node.type === 'with' ? { value, wrapped: false } : dot, node.list)
    return node.elseList ? this.walkList(dot, node.elseList) : undefined
  }

  #walkRange(dot: Slot, node: BranchNode, value: Value): Maybe<Signal> {
    const decl = node.pipe.decl.length
    const mark = this.vars.length
    const iteration = (index: Value, elem: Value, wrapped: boolean): Maybe<'break' | undefined> => {
      this.#check()
      if (decl > 0) Object.assign(this.vars[this.vars.length - 1] as Variable, { value: elem, wrapped })
      if (decl > 1) Object.assign(this.vars[this.vars.length - 2] as Variable, { value: index, wrapped: false })
      return andThen(this.walkList({ value: elem, wrapped }, node.list), (signal) => {
        this.#pop(mark)
        return signal === 'break' ? 'break' : undefined
      })
    }
    const done = (): undefined => undefined
    if (value === EMPTY) return node.elseList ? this.walkList(dot, node.elseList) : undefined
    if (Array.isArray(value) && value.length > 0) {
      return andThen(
        loop(0, value.length, (i) => iteration(BigInt(i), value[i], true)),
        done,
      )
    }
    if (isMap(value)) {
      const keys = sortedKeys(value)
      if (keys.length > 0)
        return andThen(
          loop(0, keys.length, (i) => iteration(keys[i], value[keys[i] as string], true)),
          done,
        )
    } else if (typeof value === 'bigint') {
      // Go 1.22: range over an integer.
      if (decl > 1) {
        throw this.error(
          lastEvaluated(node.pipe),
          `can't use ${formatValue(value)} to iterate over more than one variable`,
        )
      }
      if (value > 0n)
        return andThen(
          loop(0, Number(value), (i) => iteration(BigInt(i), BigInt(i), false)),
          done,
        )
    } else if (value !== undefined && !Array.isArray(value)) {
      throw this.error(lastEvaluated(node.pipe), `range can't iterate over ${formatValue(value)}`)
    }
    return node.elseList ? this.walkList(dot, node.elseList) : undefined
  }

  #walkTemplate(dot: Slot, node: TemplateNode): Maybe<Signal> {
    const tree = this.run.templates.get(node.name)
    if (!tree) throw this.error(node, `template ${sprintf('%q', [node.name])} not defined`)
    if (this.depth >= this.run.options.maxDepth) {
      throw this.error(node, `exceeded maximum template depth (${this.run.options.maxDepth})`)
    }
    const value = node.pipe ? this.#evalPipeline(dot, node.pipe) : undefined
    const called = new State(
      this.run,
      tree,
      [{ name: '$', value, wrapped: false }],
      this.depth + 1,
      this.out,
      this.seqBase,
    )
    return andThen(called.walkList({ value, wrapped: false }, tree.root), () => undefined)
  }

  // Evaluation.

  #evalPipeline(dot: Slot, pipe: PipeNode): Maybe<Value> {
    let value: Final = NO_FINAL
    for (const cmd of pipe.cmds) value = andThen(this.#evalCommand(dot, cmd, value), unwrapNil)
    const result = value as Maybe<Value>
    // A declared value may never be read; its failure is reported through the call that made it.
    if (isPromise(result)) handled(result)
    for (const variable of pipe.decl) {
      if (pipe.isAssign) this.#setVar(variable, variable.ident[0] as string, result)
      else this.#push(variable.ident[0] as string, result)
    }
    return result
  }

  #notAFunction(args: readonly ArgNode[], final: Final): void {
    if (args.length > 1 || final !== NO_FINAL) {
      throw this.error(args[0], `can't give argument to non-function ${nodeString(args[0] as ArgNode)}`)
    }
  }

  #evalCommand(dot: Slot, cmd: CommandNode, final: Final): Maybe<Value> {
    const first = cmd.args[0] as ArgNode
    switch (first.type) {
      case 'field':
        return this.#evalFieldChain(dot, first, first.ident, cmd.args, final)
      case 'chain':
        return this.#evalChainNode(dot, first, cmd.args, final)
      case 'identifier':
        return this.#evalFunction(dot, first, cmd, cmd.args, final)
      case 'pipe':
        this.#notAFunction(cmd.args, final)
        return this.#evalPipeline(dot, first)
      case 'variable':
        return this.#evalVariableNode(first, cmd.args, final)
    }
    this.#notAFunction(cmd.args, final)
    switch (first.type) {
      case 'bool':
        return first.value
      case 'dot':
        return dot.value
      case 'nil':
        throw this.error(first, 'nil is not a command')
      case 'number':
        return this.#idealConstant(first)
      case 'string':
        return first.text
    }
  }

  /** A number constant's Go type is what its syntax says: `3` is an int, `3.0` and `1e3` are float64, `1i` complex128. */
  #idealConstant(n: NumberNode): Value {
    if (n.isComplex) return n.complex128
    const hexInt = /^0[xX]/.test(n.text) && !/[pP]/.test(n.text)
    if (n.isFloat && !hexInt && !n.text.startsWith("'") && /[.eEpP]/.test(n.text)) return n.float64
    if (n.isInt) return n.int64
    if (n.isUint) throw this.error(n, `${n.text} overflows int`)
    return undefined
  }

  #evalChainNode(dot: Slot, chain: ChainNode, args: readonly ArgNode[], final: Final): Maybe<Value> {
    if (chain.node.type === 'nil') throw this.error(chain, `indirection through explicit nil in ${nodeString(chain)}`)
    // Go evaluates the receiver with no parameter type: a missing value stays missing, not nil.
    const receiver = this.#evalArg(dot, chain.node, true)
    return this.#evalFieldChain({ value: receiver, wrapped: false }, chain, chain.field, args, final)
  }

  #evalVariableNode(variable: VariableNode, args: readonly ArgNode[], final: Final): Maybe<Value> {
    const slot = this.#varSlot(variable, variable.ident[0] as string)
    if (variable.ident.length === 1) {
      this.#notAFunction(args, final)
      return slot.value
    }
    return this.#evalFieldChain(slot, variable, variable.ident.slice(1), args, final)
  }

  #evalFieldChain(
    receiver: Slot,
    node: FieldNode | ChainNode | VariableNode,
    ident: readonly string[],
    args: readonly ArgNode[],
    final: Final,
  ): Maybe<Value> {
    let value = receiver.value
    // A chain on a pending value fails, if it does, at this point of the execution order.
    const seq = isPromise(value) ? this.#nextSeq() : undefined
    ident.forEach((name, i) => {
      const last = i === ident.length - 1
      // Every receiver after the first is a map element: an interface{} to Go.
      const wrapped = i === 0 ? receiver.wrapped : true
      value = andThen(value, (r) =>
        this.#evalField(name, node, last ? args : [], last ? final : NO_FINAL, r, wrapped, seq),
      )
    })
    return value
  }

  #evalField(
    name: string,
    node: Node,
    args: readonly ArgNode[],
    final: Final,
    receiver: Value,
    wrapped: boolean,
    seq: number | undefined,
  ): Value {
    const missingKey = this.run.options.missingKey
    if (receiver === EMPTY) return EMPTY
    if (receiver === undefined) {
      if (missingKey === 'error') throw this.error(node, `nil data; no entry for key ${sprintf('%q', [name])}`, seq)
      return undefined
    }
    const typ = wrapped ? 'interface {}' : typeName(receiver)
    if (receiver === null) throw this.error(node, `nil pointer evaluating ${typ}.${name}`, seq)
    if (isMap(receiver)) {
      if (args.length > 1 || final !== NO_FINAL)
        throw this.error(node, `${name} is not a method but has arguments`, seq)
      if (mapHas(receiver, name)) return receiver[name]
      if (missingKey === 'error') throw this.error(node, `map has no entry for key ${sprintf('%q', [name])}`, seq)
      return missingKey === 'zero' ? null : undefined
    }
    throw this.error(node, `can't evaluate field ${name} in type ${typ}`, seq)
  }

  /** A call: errors about the call itself are at the name; failures of the function, at the whole command. */
  #evalFunction(dot: Slot, node: IdentifierNode, cmd: Node, args: readonly ArgNode[], final: Final): Maybe<Value> {
    const name = node.ident
    const user = this.run.options.funcs.get(name)
    if (user) return this.#callUser(dot, cmd, name, user, args, final)
    const builtin = Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined
    if (builtin) return this.#callBuiltin(dot, node, cmd, name, builtin, args, final)
    throw this.error(node, `${sprintf('%q', [name])} is not a defined function`)
  }

  /** The operands after the function's name, evaluated in order, then the piped-in value. */
  #evalArgs(dot: Slot, args: readonly ArgNode[], final: Final, raw: boolean): Maybe<Value>[] {
    const values = args.slice(1).map((arg) => andThen(this.#evalArg(dot, arg, raw), emptyAsString))
    if (final !== NO_FINAL) values.push(andThen(final, raw ? emptyAsString : nilForInterface))
    // A later operand may fail synchronously and leave these unread.
    for (const v of values) if (isPromise(v)) handled(v)
    return values
  }

  #callUser(
    dot: Slot,
    node: Node,
    name: string,
    fn: TemplateFunction,
    args: readonly ArgNode[],
    final: Final,
  ): Maybe<Value> {
    const seq = this.#nextSeq()
    const fail = (e: unknown): never => {
      if (e instanceof ExecError) throw e
      throw this.error(node, `error calling ${name}: ${e instanceof Error ? e.message : String(e)}`, seq)
    }
    return allThen(this.#evalArgs(dot, args, final, false), (argv) => {
      let result: Maybe<Value>
      try {
        result = fn(...argv)
      } catch (e) {
        return fail(e)
      }
      if (!isThenable(result)) return result
      const pending = Promise.resolve(result).catch(fail)
      // Its failure is the render's failure even if nothing reads its value.
      this.run.inflight.push(pending)
      pending.catch(() => {})
      return pending
    })
  }

  #callBuiltin(
    dot: Slot,
    node: IdentifierNode,
    cmd: Node,
    name: string,
    builtin: Builtin,
    args: readonly ArgNode[],
    final: Final,
  ): Maybe<Value> {
    const given = args.length - 1 + (final === NO_FINAL ? 0 : 1)
    if (builtin.variadic) {
      if (given < builtin.arity) {
        throw this.error(
          node,
          `wrong number of args for ${name}: want at least ${builtin.arity} got ${args.length - 1}`,
        )
      }
    } else if (given !== builtin.arity) {
      throw this.error(node, `wrong number of args for ${name}: want ${builtin.arity} got ${given}`)
    }
    if (name === 'and' || name === 'or') return this.#andOr(dot, name === 'or', args, final)
    const format = builtin.stringFirst ? (args[1] ?? node) : undefined
    if (format && isConstant(format) && format.type !== 'string') {
      throw this.error(
        format,
        format.type === 'nil' ? 'cannot assign nil to string' : `expected string; found ${nodeString(format)}`,
      )
    }
    const seq = this.#nextSeq()
    return allThen(this.#evalArgs(dot, args, final, builtin.raw), (argv) => {
      if (format && typeof argv[0] !== 'string') {
        const got =
          argv[0] === null
            ? 'invalid value; expected string'
            : `wrong type for value; expected string; got ${typeName(argv[0])}`
        throw this.error(format, got, seq)
      }
      try {
        return builtin.call(argv)
      } catch (e) {
        throw this.error(cmd, `error calling ${name}: ${e instanceof Error ? e.message : String(e)}`, seq)
      }
    })
  }

  /**
   * and/or short-circuit: an operand is evaluated only if the ones before it
   * did not decide. Later operands read variables as they were when the
   * expression started, even if an earlier operand was pending.
   */
  #andOr(dot: Slot, isOr: boolean, args: readonly ArgNode[], final: Final): Maybe<Value> {
    const operands = args.slice(1)
    const step = (state: State, i: number, last: Value): Maybe<Value> => {
      if (i === operands.length) return final === NO_FINAL ? last : final
      const value = state.#evalArg(dot, operands[i] as ArgNode, true)
      if (!isPromise(value))
        return isTrue(value as Value) === isOr ? (value as Value) : step(state, i + 1, value as Value)
      const snapshot = new State(
        state.run,
        state.tree,
        state.vars.map((v) => ({ ...v })),
        state.depth,
        [],
        state.seqBase,
      )
      return value.then((v) => (isTrue(v) === isOr ? v : step(snapshot, i + 1, v)))
    }
    return step(this, 0, undefined)
  }

  /**
   * One operand. `raw` is for builtins, which take reflect.Values in Go: a
   * missing value stays missing. Other functions take interface{}: missing is nil.
   */
  #evalArg(dot: Slot, n: ArgNode, raw: boolean): Maybe<Value> {
    let value: Maybe<Value>
    switch (n.type) {
      case 'dot':
        value = dot.value
        break
      case 'nil':
        return raw ? undefined : null
      case 'field':
        value = this.#evalFieldChain(dot, n, n.ident, [n], NO_FINAL)
        break
      case 'variable':
        value = this.#evalVariableNode(n, [n], NO_FINAL)
        break
      case 'pipe':
        value = this.#evalPipeline(dot, n)
        break
      case 'identifier':
        value = this.#evalFunction(dot, n, n, [n], NO_FINAL)
        break
      case 'chain':
        value = this.#evalChainNode(dot, n, [n], NO_FINAL)
        break
      case 'bool':
        return n.value
      case 'number':
        return this.#idealConstant(n)
      case 'string':
        return n.text
    }
    return raw ? value : andThen(value, nilForInterface)
  }
}

function isConstant(n: Node): boolean {
  return n.type === 'bool' || n.type === 'number' || n.type === 'nil' || n.type === 'string'
}

/** Go unwraps an interface{} after each command: a nil one becomes the invalid value. */
function unwrapNil(v: Value): Value {
  return v === null ? undefined : v
}

/** Passed to an interface{} parameter, the invalid value is nil (and EMPTY the empty string). */
function nilForInterface(v: Value): Value {
  return v === undefined ? null : emptyAsString(v)
}

/** What a function or builtin given a soft failure's value sees. */
function emptyAsString(v: Value): Value {
  return v === EMPTY ? '' : v
}

function printValue(v: Value): string {
  if (v === undefined) return '<no value>'
  return v === EMPTY ? '' : formatValue(v)
}

/** Marks a Promise whose failure is reported elsewhere, so that dropping it is not an unhandled rejection. */
function handled(p: Promise<unknown>): void {
  p.catch(() => {})
}

function isThenable(v: unknown): v is PromiseLike<Value> {
  return typeof (v as { then?: unknown } | null)?.then === 'function'
}

/** Joins output pieces, waiting for those still pending, in order. */
export function joinPieces(pieces: readonly Piece[]): Maybe<string> {
  return pieces.some(isPromise) ? Promise.all(pieces).then((parts) => parts.join('')) : (pieces as string[]).join('')
}
