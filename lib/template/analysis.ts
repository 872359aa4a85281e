/**
 * Static analysis of a parsed template set, for the service: which paths of
 * the data the main template can read, and which functions it can call,
 * without running it. The render pipeline fetches only those variables and
 * names the missing ones before execution.
 *
 * A path is where a value is read from the root data: `{{.vscode.rules}}` reads
 * ["vscode", "rules"]. Where the template reads through something dynamic (a
 * range element, an index by a variable, a function's result), the read is
 * the longest static prefix: `{{range .files}}{{.name}}{{end}}` reads ["files"].
 * [] is the whole root (`{{.}}` at the top). The result is minimal: no path is
 * listed under another listed path.
 */
import type { ArgNode, ListNode, Node, PipeNode, StringNode } from './nodes'
import type { Tree } from './parser'

export type Path = readonly string[]

export interface Analysis {
  /** Root data paths read, minimal and sorted. */
  readonly paths: readonly Path[]
  /** Names of the functions called (builtins included), sorted. */
  readonly functions: readonly string[]
}

/** Where a value comes from: a root data path, or nowhere static (undefined). */
type Source = Path | undefined

interface Scope {
  dot: Source
  vars: Map<string, Source>
}

export function analyze(templates: ReadonlyMap<string, Tree>, name: string): Analysis {
  const paths: Path[] = []
  const functions = new Set<string>()
  const visited = new Set<string>()

  const read = (source: Source): void => {
    if (source) paths.push(source)
  }

  const walkTree = (treeName: string, dot: Source): void => {
    const key = `${treeName}\u0000${dot ? JSON.stringify(dot) : ''}`
    const tree = templates.get(treeName)
    if (!tree || visited.has(key)) return
    visited.add(key)
    walkList(tree.root, { dot, vars: new Map([['$', dot]]) })
  }

  const walkList = (list: ListNode | undefined, scope: Scope): void => {
    for (const node of list?.nodes ?? []) walk(node, scope)
  }

  const walk = (node: Node, scope: Scope): void => {
    switch (node.type) {
      case 'action':
        read(pipe(node.pipe, scope))
        return
      case 'if':
      case 'with':
      case 'range': {
        // Variables declared in the pipeline live until {{end}}.
        const inner: Scope = { dot: scope.dot, vars: new Map(scope.vars) }
        const source = pipe(node.pipe, inner)
        read(source)
        if (node.type === 'range') {
          // Elements, keys and indexes are dynamic: reading the collection covers them.
          for (const v of node.pipe.decl) inner.vars.set(v.ident[0] as string, undefined)
          walkList(node.list, { dot: undefined, vars: inner.vars })
        } else {
          walkList(node.list, node.type === 'with' ? { dot: source, vars: inner.vars } : inner)
        }
        walkList(node.elseList, inner)
        return
      }
      case 'template':
        walkTree(node.name, node.pipe ? pipe(node.pipe, scope) : undefined)
        return
      case 'list':
        walkList(node, scope)
        return
      default:
        return
    }
  }

  /** A pipeline's source; operands of calls are read on the way. Declarations take the source. */
  const pipe = (p: PipeNode, scope: Scope): Source => {
    let source: Source
    p.cmds.forEach((cmd, i) => {
      const [first, ...rest] = cmd.args
      if (!first) return
      if (first.type === 'identifier') {
        functions.add(first.ident)
        const operands = rest.map((a) => operand(a, scope))
        if (i > 0) read(source)
        source = first.ident === 'index' ? indexSource(operands, rest) : undefined
        if (first.ident !== 'index' || source === undefined) operands.forEach(read)
      } else {
        source = operand(first, scope)
      }
    })
    for (const v of p.decl) scope.vars.set(v.ident[0] as string, source)
    return source
  }

  /** `index .a "b" "c"` with constant keys reads a.b.c; anything else reads a. */
  const indexSource = (operands: Source[], args: readonly ArgNode[]): Source => {
    const base = operands[0]
    const keys = args.slice(1)
    if (!base || !keys.every((a): a is StringNode => a.type === 'string')) return undefined
    return [...base, ...keys.map((k) => k.text)]
  }

  /** An operand's source, without reading it (the caller decides). */
  const operand = (arg: ArgNode, scope: Scope): Source => {
    switch (arg.type) {
      case 'dot':
        return scope.dot
      case 'field':
        return scope.dot && [...scope.dot, ...arg.ident]
      case 'variable': {
        const base = scope.vars.get(arg.ident[0] as string)
        return base && [...base, ...arg.ident.slice(1)]
      }
      case 'chain': {
        const base =
          arg.node.type === 'pipe'
            ? pipe(arg.node, { dot: scope.dot, vars: new Map(scope.vars) })
            : operand(arg.node, scope)
        return base && [...base, ...arg.field]
      }
      case 'pipe':
        return pipe(arg, { dot: scope.dot, vars: new Map(scope.vars) })
      case 'identifier':
        functions.add(arg.ident)
        return undefined
      default:
        return undefined
    }
  }

  walkTree(name, [])
  return { paths: minimal(paths), functions: [...functions].sort() }
}

/** What several templates read and call, together. */
export function mergeAnalyses(analyses: readonly Analysis[]): Analysis {
  return {
    paths: minimal(analyses.flatMap((a) => a.paths)),
    functions: [...new Set(analyses.flatMap((a) => a.functions))].sort(),
  }
}

/** Sorted, without duplicates or paths under another listed path. */
function minimal(paths: Path[]): Path[] {
  const sorted = [...paths].sort((a, b) => a.length - b.length)
  const kept: Path[] = []
  for (const p of sorted) {
    if (!kept.some((k) => k.length <= p.length && k.every((s, i) => s === p[i]))) kept.push(p)
  }
  return kept.sort((a, b) => {
    const x = a.join('.')
    const y = b.join('.')
    return x < y ? -1 : x > y ? 1 : 0
  })
}
