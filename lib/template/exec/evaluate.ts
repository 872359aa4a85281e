/**
 * Evaluation for the executor (Go's exec.go, evalPipeline and below): what a
 * pipeline, a command, a field chain, a function call or an operand is worth,
 * with Promises where a function returned one. Each operation waiting on a
 * pending value is counted (Run.waits): in the step budget, and in the
 * weight of the pending work it belongs to.
 */
import type { Builtin, Param } from './run'
import { sprintf } from '../fmt'
import { handled, isPromise, isThenable } from './maybe'
import type { Maybe } from './maybe'
import type {
  ArgNode,
  BoolNode,
  ChainNode,
  CommandNode,
  FieldNode,
  IdentifierNode,
  Node,
  NumberNode,
  PipeNode,
  StringNode,
  VariableNode,
} from '../parse/nodes'
import { quotedNode } from '../parse/nodes'
import { isStackOverflow } from '../errors'
import { ExecError, lastOfOperand } from './errors'
import type { Order } from './errors'
import type { Output } from './output'
import type { Tree } from '../parse/parser'
import { Reporter } from './reporter'
import type { Run, TemplateFunction } from './run'
import type { Slot, Variables } from './variables'
import { emptyAsString, indirectInterface, isMap, mapHas, nilForInterface, numberLike, typeName } from '../value'
import type { Value } from '../value'
import { EMPTY } from '../value'

/** No final (piped-in) argument: Go's missingVal. */
const NO_FINAL: unique symbol = Symbol('no final argument')
export type Final = Maybe<Value> | typeof NO_FINAL
/** The arguments of a field that is not the last of its chain. */
const NO_ARGS: readonly ArgNode[] = []
/** The kinds of the arguments of a function called as an operand: it has none. */
const NO_KINDS: readonly ArgNode['type'][] = []

/**
 * The evaluating half of Go's `state`: variables, errors, and the values of
 * pipelines, commands, fields, function calls and operands. exec.ts walks
 * the tree on top of it (State extends it: one object, as Go's state is; see State).
 */
export class Evaluator extends Reporter {
  constructor(
    readonly run: Run,
    tree: Tree,
    readonly vars: Variables,
    readonly depth: number,
    readonly out: Output,
    order: Order,
  ) {
    super(tree, order)
  }

  // Variables.

  private setVar(node: VariableNode, value: Maybe<Value>): void {
    const v = this.varSlot(node)
    v.value = value
    v.wrapped = false
  }

  private varSlot(node: VariableNode): Slot {
    const v = this.vars.find(node.id)
    if (!v) throw this.error(node, `undefined variable: ${node.ident[0]}`)
    return v
  }

  // Pending values.

  /** `f` on `v` now, or once it arrives. */
  protected then<T, U>(v: Maybe<T>, f: (value: T) => Maybe<U>): Maybe<U> {
    if (!isPromise(v)) return f(v as T)
    this.run.waits(1)
    return v.then(f)
  }

  /** All the values at once, once those still pending arrive; undefined when none is pending (nothing to wait for). */
  private whenAll<T>(vs: readonly Maybe<T>[]): Promise<T[]> | undefined {
    if (!vs.some(isPromise)) return undefined
    // Promise.all waits on each value, and makes its own Promise; the caller's `then` makes one more.
    this.run.waits(vs.length + 2)
    return Promise.all(vs)
  }

  // Evaluation.

  protected evalPipeline(dot: Slot, pipe: PipeNode): Maybe<Value> {
    let value: Final = NO_FINAL
    for (const cmd of pipe.cmds) value = this.then(this.evalCommand(dot, cmd, value), indirectInterface)
    const result = value as Maybe<Value>
    // A declared value may never be read; its failure is reported through the call that made it.
    if (isPromise(result)) handled(result)
    for (const variable of pipe.decl) {
      if (pipe.isAssign) this.setVar(variable, result)
      else this.vars.push(variable.id, result)
    }
    return result
  }

  private notAFunction(args: readonly ArgNode[], final: Final): void {
    if (args.length > 1 || final !== NO_FINAL) {
      throw this.error(args[0], `can't give argument to non-function ${quotedNode(args[0] as ArgNode)}`)
    }
  }

  private evalCommand(dot: Slot, cmd: CommandNode, final: Final): Maybe<Value> {
    const args = cmd.args
    const first = args[0]
    switch (cmd.kinds[0]) {
      case 'field': {
        const field = first as FieldNode
        return this.evalFieldChain(dot, field, field.ident, args, final)
      }
      case 'chain':
        return this.evalChainNode(dot, first as ChainNode, args, final)
      case 'identifier':
        return this.evalFunction(dot, first as IdentifierNode, cmd, args, cmd.kinds, final)
      case 'pipe':
        this.notAFunction(args, final)
        return this.evalPipeline(dot, first as PipeNode)
      case 'variable':
        return this.evalVariableNode(first as VariableNode, args, final)
    }
    this.notAFunction(args, final)
    if (cmd.kinds[0] === 'nil') throw this.error(first, 'nil is not a command')
    // A constant or dot: what it is worth as an operand.
    return this.evalArg(dot, first as ArgNode, true, cmd.kinds[0])
  }

  /** A number constant's Go type is what its syntax says: `3` is an int, `3.0` and `1e3` are float64, `1i` complex128. */
  private idealConstant(n: NumberNode): Value {
    switch (n.ideal) {
      case 'complex':
        return n.complex128
      case 'float':
        return n.float64
      case 'int':
        return n.int64
      case 'overflow':
        throw this.error(n, `${n.text} overflows int`)
      case 'none':
        return undefined
    }
  }

  private evalChainNode(dot: Slot, chain: ChainNode, args: readonly ArgNode[], final: Final): Maybe<Value> {
    if (chain.node.type === 'nil') throw this.error(chain, `indirection through explicit nil in ${quotedNode(chain)}`)
    // Go evaluates the receiver with no parameter type: a missing value stays missing, not nil.
    const receiver = this.evalArg(dot, chain.node, true)
    return this.evalFieldChain({ value: receiver, wrapped: false }, chain, chain.field, args, final)
  }

  private evalVariableNode(variable: VariableNode, args: readonly ArgNode[], final: Final): Maybe<Value> {
    const slot = this.varSlot(variable)
    if (variable.ident.length === 1) {
      this.notAFunction(args, final)
      return slot.value
    }
    // The names after the variable's own.
    return this.evalFieldChain(slot, variable, variable.ident, args, final, 1)
  }

  private evalFieldChain(
    receiver: Slot,
    node: FieldNode | ChainNode | VariableNode,
    ident: readonly string[],
    args: readonly ArgNode[],
    final: Final,
    from = 0,
  ): Maybe<Value> {
    let value = receiver.value
    // A chain on a pending value fails, if it does, at this point of the execution order.
    const seq = isPromise(value) ? this.order.next() : undefined
    const last = ident.length - 1
    for (let i = from; i <= last; i++) {
      const name = ident[i] as string
      const fieldArgs = i === last ? args : NO_ARGS
      const fieldFinal = i === last ? final : NO_FINAL
      // Every receiver after the first is a map element: an interface{} to Go.
      const wrapped = i === from ? receiver.wrapped : true
      value = isPromise(value)
        ? this.then(value, (r) => this.evalField(name, node, fieldArgs, fieldFinal, r, wrapped, seq))
        : this.evalField(name, node, fieldArgs, fieldFinal, value as Value, wrapped, seq)
    }
    return value
  }

  private evalField(
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
    if (receiver === null) throw this.error(node, `nil pointer evaluating ${typeOf(receiver, wrapped)}.${name}`, seq)
    if (isMap(receiver)) {
      if (args.length > 1 || final !== NO_FINAL)
        throw this.error(node, `${name} is not a method but has arguments`, seq)
      if (mapHas(receiver, name)) return receiver[name]
      if (missingKey === 'error') throw this.error(node, `map has no entry for key ${sprintf('%q', [name])}`, seq)
      return missingKey === 'zero' ? null : undefined
    }
    throw this.error(node, `can't evaluate field ${name} in type ${typeOf(receiver, wrapped)}`, seq)
  }

  /** A call: errors about the call itself are at the name; failures of the function, at the whole command. */
  private evalFunction(
    dot: Slot,
    node: IdentifierNode,
    cmd: Node,
    args: readonly ArgNode[],
    kinds: readonly ArgNode['type'][],
    final: Final,
  ): Maybe<Value> {
    const name = node.ident
    const user = this.run.options.funcs(name)
    if (user) return this.callUser(dot, cmd, name, user, args, kinds, final)
    const builtins = this.run.options.builtins
    const builtin = Object.hasOwn(builtins, name) ? builtins[name] : undefined
    if (builtin) return this.callBuiltin(dot, node, cmd, name, builtin, args, kinds, final)
    throw this.error(node, `${sprintf('%q', [name])} is not a defined function`)
  }

  /**
   * The operands after the function's name, evaluated in order, then the
   * piped-in value; each one a typed parameter (`params`) takes converted
   * as it comes, as Go's evalArg and validateType do.
   */
  private evalArgs(
    dot: Slot,
    args: readonly ArgNode[],
    kinds: readonly ArgNode['type'][],
    final: Final,
    raw: boolean,
    params?: readonly Param[],
  ): Maybe<Value>[] {
    const values: Maybe<Value>[] = []
    for (let i = 1; i < args.length; i++) {
      const arg = args[i] as ArgNode
      const param = params?.[i - 1]
      let value: Maybe<Value> = param === undefined ? undefined : this.convertConstant(arg, param)
      if (value === undefined) {
        value = this.then(this.evalArg(dot, arg, raw, kinds[i]), emptyAsString)
        if (param !== undefined) value = this.convert(value, param, lastOfOperand(arg), raw)
      }
      values.push(this.operand(value))
    }
    if (final !== NO_FINAL) {
      let value = this.then(final, raw ? emptyAsString : nilForInterface)
      const param = params?.[args.length - 1]
      // Go checks the piped-in value where its executor last was: in the last operand, or at the name.
      const at = args.length > 1 ? lastOfOperand(args[args.length - 1] as ArgNode) : (args[0] as ArgNode)
      if (param !== undefined) value = this.convert(value, param, at, raw)
      values.push(this.operand(value))
    }
    return values
  }

  /** A constant operand of a typed parameter, converted as Go converts it; undefined for any other operand. */
  private convertConstant(arg: ArgNode, param: Param): Value | undefined {
    switch (arg.type) {
      case 'nil':
        throw this.error(arg, `cannot assign nil to ${param}`)
      case 'string':
        if (param === 'string') return arg.text
        break
      case 'number':
        if (param === 'int' && arg.isInt) return arg.int64
        break
      case 'bool':
        break
      default:
        return undefined
    }
    throw this.error(arg, `expected ${param === 'int' ? 'integer' : 'string'}; found ${quotedNode(arg)}`)
  }

  /**
   * An operand's value as a typed parameter takes it, or Go's refusal at
   * `node`; a pending one's once it arrives, placed where it was evaluated.
   * Deliberate difference: an int parameter takes a whole float64, as
   * `index` does, since every JSON number is one.
   */
  private convert(value: Maybe<Value>, param: Param, node: Node, raw: boolean): Maybe<Value> {
    if (!isPromise(value)) return this.typed(value as Value, param, node, raw)
    const seq = this.order.next()
    return this.then(value, (v) => this.typed(v, param, node, raw, seq))
  }

  private typed(v: Value, param: Param, node: Node, raw: boolean, seq?: number): Value {
    if (param === 'string' ? typeof v === 'string' : typeof v === 'bigint' || Number.isInteger(v)) return v
    // Not raw, a missing operand was made nil already, and a nil cannot be told from it: both are worded as missing.
    if (v === undefined || (v === null && !raw)) throw this.error(node, `invalid value; expected ${param}`, seq)
    const got = v === null ? 'interface {}' : typeName(v)
    throw this.error(node, `wrong type for value; expected ${param}; got ${got}`, seq)
  }

  /** An operand's value, marked handled if pending: a later operand may fail synchronously and leave it unread. */
  private operand(v: Maybe<Value>): Maybe<Value> {
    if (isPromise(v)) handled(v)
    return v
  }

  private callUser(
    dot: Slot,
    node: Node,
    name: string,
    fn: TemplateFunction,
    args: readonly ArgNode[],
    kinds: readonly ArgNode['type'][],
    final: Final,
  ): Maybe<Value> {
    const seq = this.order.next()
    const argv = this.evalArgs(dot, args, kinds, final, false)
    const pending = this.whenAll(argv)
    if (pending) return pending.then((values) => this.applyUser(node, name, fn, values, seq))
    return this.applyUser(node, name, fn, argv as Value[], seq)
  }

  private applyUser(node: Node, name: string, fn: TemplateFunction, argv: Value[], seq: number): Maybe<Value> {
    const fail = (e: unknown): never => {
      if (e instanceof ExecError || isStackOverflow(e)) throw e
      throw this.error(node, `error calling ${name}: ${e instanceof Error ? e.message : String(e)}`, seq)
    }
    let result: Maybe<Value>
    try {
      result = fn.apply(this.run, argv.map(numberLike))
    } catch (e) {
      // The budget ran out while the function counted its work: the execution's end, not the function's error.
      if (e instanceof DOMException && e.name === 'TimeoutError') throw e
      return fail(e)
    }
    return isThenable(result) ? this.run.call(result as PromiseLike<Value>, this.order, fail) : result
  }

  private callBuiltin(
    dot: Slot,
    node: IdentifierNode,
    cmd: Node,
    name: string,
    builtin: Builtin,
    args: readonly ArgNode[],
    kinds: readonly ArgNode['type'][],
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
    if (name === 'and' || name === 'or') return this.andOr(dot, name === 'or', args, final)
    const seq = this.order.next()
    const argv = this.evalArgs(dot, args, kinds, final, builtin.raw, builtin.params)
    const pending = this.whenAll(argv)
    if (pending) return pending.then((values) => this.applyBuiltin(cmd, name, builtin, values, seq))
    return this.applyBuiltin(cmd, name, builtin, argv as Value[], seq)
  }

  private applyBuiltin(cmd: Node, name: string, builtin: Builtin, argv: Value[], seq: number): Value {
    try {
      const result = builtin.call(argv, this.run)
      // A string passed through as it is (html with nothing to escape, print of one string) is no new string.
      if (typeof result === 'string' && !argv.includes(result)) this.run.built(result.length)
      return result
    } catch (e) {
      if (isStackOverflow(e) || e instanceof DOMException) throw e
      const context = `error calling ${name}: `
      throw (
        this.limitReached(e, cmd, context, seq) ??
        this.error(cmd, context + (e instanceof Error ? e.message : String(e)), seq)
      )
    }
  }

  /**
   * and/or short-circuit: an operand is evaluated only if the ones before it
   * did not decide. Later operands read variables as they were when the
   * expression started, even if an earlier operand was pending.
   */
  private andOr(dot: Slot, isOr: boolean, args: readonly ArgNode[], final: Final): Maybe<Value> {
    const operands = args.slice(1)
    const step = (state: Evaluator, i: number, last: Value): Maybe<Value> => {
      if (i === operands.length) return final === NO_FINAL ? last : final
      const value = state.evalArg(dot, operands[i] as ArgNode, true)
      if (!isPromise(value))
        return this.run.truth(value as Value) === isOr ? (value as Value) : step(state, i + 1, value as Value)
      // The rest is evaluated later, but in execution order it comes here.
      const snapshot = new Evaluator(
        state.run,
        state.tree,
        state.vars.copy(),
        state.depth,
        state.out,
        state.order.fork(),
      )
      this.run.keeps(state.vars.mark)
      return this.then(value, (v) => (this.run.truth(v) === isOr ? v : step(snapshot, i + 1, v)))
    }
    return step(this, 0, undefined)
  }

  /**
   * One operand. `raw` is for builtins, which take reflect.Values in Go: a
   * missing value stays missing. Other functions take interface{}: missing is nil.
   */
  private evalArg(dot: Slot, n: ArgNode, raw: boolean, kind: ArgNode['type'] = n.type): Maybe<Value> {
    let value: Maybe<Value>
    switch (kind) {
      case 'dot':
        value = dot.value
        break
      case 'nil':
        return raw ? undefined : null
      case 'field':
        value = this.evalFieldChain(dot, n as FieldNode, (n as FieldNode).ident, [n], NO_FINAL)
        break
      case 'variable':
        value = this.evalVariableNode(n as VariableNode, [n], NO_FINAL)
        break
      case 'pipe':
        value = this.evalPipeline(dot, n as PipeNode)
        break
      case 'identifier':
        value = this.evalFunction(dot, n as IdentifierNode, n, [n], NO_KINDS, NO_FINAL)
        break
      case 'chain':
        value = this.evalChainNode(dot, n as ChainNode, [n], NO_FINAL)
        break
      case 'bool':
        return (n as BoolNode).value
      case 'number':
        return this.idealConstant(n as NumberNode)
      case 'string':
        return (n as StringNode).text
    }
    return raw ? value : this.then(value, nilForInterface)
  }
}

/** A receiver's type as Go's messages name it: a map or slice element is an interface{}. */
function typeOf(receiver: Value, wrapped: boolean): string {
  return wrapped ? 'interface {}' : typeName(receiver)
}
