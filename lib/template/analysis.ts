/**
 * Static analysis of a parsed template set, for the service: which paths of
 * the data the main template can read, which of them it reads whatever the
 * data, and which functions it can call, without running it. The render
 * pipeline fetches only those variables, and names a missing one before
 * execution when the template would read it whatever happens.
 *
 * A path is where a value is read from the root data: `{{.vscode.rules}}` reads
 * ["vscode", "rules"]. Where the template reads through something dynamic (a
 * range element, an index by a variable, a function's result), the read is
 * the longest static prefix: `{{range .files}}{{.name}}{{end}}` reads ["files"].
 * [] is the whole root (`{{.}}` at the top). Lists are minimal: no path is
 * listed under another listed path.
 */
import type { ArgNode, ListNode, Node, PipeNode, StringNode } from './nodes'
import type { Tree } from './parser'

export type Path = readonly string[]

export interface Analysis {
  /** Root data paths the template may read: what to load. Minimal and sorted. */
  readonly paths: readonly Path[]
  /**
   * Paths it reads on every execution, outside any if/with/range body, later
   * and/or operand or index result: under missingkey=error a missing one is
   * an error whatever the data. Sorted.
   */
  readonly required: readonly Path[]
  /** Names of the functions called (builtins included), sorted. */
  readonly functions: readonly string[]
}

/** Where a value comes from: a root data path, or nowhere static (undefined). */
type Source = Path | undefined

interface Scope {
  dot: Source
  vars: Map<string, Source>
  /** Inside a branch that may not run: reads here are not required. */
  conditional: boolean
}

export function analyze(templates: ReadonlyMap<string, Tree>, name: string): Analysis {
  try {
    return analyzeSet(templates, name)
  } catch (e) {
    // Too deep to follow: read everything, require nothing, and let execution judge.
    if (e instanceof RangeError) return { paths: [[]], required: [], functions: [] }
    throw e
  }
}

function analyzeSet(templates: ReadonlyMap<string, Tree>, name: string): Analysis {
  const paths: Path[] = []
  const required: Path[] = []
  const functions = new Set<string>()
  const visited = new Set<string>()
  const calling = new Set<string>()
  /** Paths that stand for index results: loaded, never required (a missing key is no error there). */
  const soft = new WeakSet<Path>()

  const read = (source: Source, scope: Scope): void => {
    if (!source) return
    paths.push(source)
    if (!scope.conditional && !soft.has(source)) required.push(source)
  }

  const walkTree = (treeName: string, dot: Source, conditional: boolean): void => {
    // A template calling itself (directly or not) may go deeper each time: its dot is dynamic there.
    const recursive = calling.has(treeName)
    const entry = recursive ? undefined : dot
    const key = `${treeName}\u0000${conditional ? 1 : 0}\u0000${entry ? JSON.stringify(entry) : ''}`
    const tree = templates.get(treeName)
    if (!tree || visited.has(key)) return
    visited.add(key)
    calling.add(treeName)
    walkList(tree.root, { dot: entry, vars: new Map([['$', entry]]), conditional })
    if (!recursive) calling.delete(treeName)
  }

  const walkList = (list: ListNode | undefined, scope: Scope): void => {
    for (const node of list?.nodes ?? []) walk(node, scope)
  }

  const walk = (node: Node, scope: Scope): void => {
    switch (node.type) {
      case 'action':
        read(pipe(node.pipe, scope), scope)
        return
      case 'if':
      case 'with':
      case 'range': {
        // Variables declared in the pipeline live until {{end}}; the pipeline itself always runs.
        const inner: Scope = { ...scope, vars: new Map(scope.vars) }
        const source = pipe(node.pipe, inner)
        read(source, inner)
        const branch: Scope = { ...inner, conditional: true }
        if (node.type === 'range') {
          // Elements, keys and indexes are dynamic: reading the collection covers them.
          for (const v of node.pipe.decl) branch.vars.set(v.ident[0] as string, undefined)
          walkList(node.list, { ...branch, dot: undefined })
        } else {
          walkList(node.list, node.type === 'with' ? { ...branch, dot: source } : branch)
        }
        walkList(node.elseList, branch)
        return
      }
      case 'template': {
        const arg = node.pipe ? pipe(node.pipe, scope) : undefined
        const before = paths.length
        walkTree(node.name, arg, scope.conditional)
        // The argument is evaluated whatever the template does with it; load it whole
        // only if the template read nothing under it.
        if (arg) {
          if (!scope.conditional && !soft.has(arg)) required.push(arg)
          if (!paths.slice(before).some((p) => startsWith(p, arg))) paths.push(arg)
        }
        return
      }
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
      if (first.type !== 'identifier') {
        source = operand(first, scope)
        return
      }
      functions.add(first.ident)
      if (i > 0) read(source, scope)
      // and/or evaluate an operand only when the ones before it did not decide.
      const shortCircuit = first.ident === 'and' || first.ident === 'or'
      const operands = rest.map((a, j) => operand(a, j > 0 && shortCircuit ? { ...scope, conditional: true } : scope))
      source = first.ident === 'index' ? indexSource(operands, rest) : undefined
      if (source) soft.add(source)
      else operands.forEach((o, j) => read(o, j > 0 && shortCircuit ? { ...scope, conditional: true } : scope))
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
          arg.node.type === 'pipe' ? pipe(arg.node, { ...scope, vars: new Map(scope.vars) }) : operand(arg.node, scope)
        return base && [...base, ...arg.field]
      }
      case 'pipe':
        return pipe(arg, { ...scope, vars: new Map(scope.vars) })
      case 'identifier':
        functions.add(arg.ident)
        return undefined
      default:
        return undefined
    }
  }

  walkTree(name, [], false)
  return { paths: minimal(paths), required: unique(required), functions: [...functions].sort() }
}

/** What several templates read and call, together. */
export function mergeAnalyses(analyses: readonly Analysis[]): Analysis {
  return {
    paths: minimal(analyses.flatMap((a) => a.paths)),
    required: unique(analyses.flatMap((a) => a.required)),
    functions: [...new Set(analyses.flatMap((a) => a.functions))].sort(),
  }
}

function startsWith(path: Path, prefix: Path): boolean {
  return prefix.length <= path.length && prefix.every((s, i) => s === path[i])
}

/** Segment by segment, so that a path's descendants sort right after it. */
function compare(a: Path, b: Path): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string
    const y = b[i] as string
    if (x !== y) return x < y ? -1 : 1
  }
  return a.length - b.length
}

/** Sorted, without duplicates or paths under another listed path. */
function minimal(paths: readonly Path[]): Path[] {
  const kept: Path[] = []
  for (const p of [...paths].sort(compare)) {
    const last = kept[kept.length - 1]
    if (!last || !startsWith(p, last)) kept.push(p)
  }
  return kept
}

/** Sorted, without duplicates. */
function unique(paths: readonly Path[]): Path[] {
  return [...paths].sort(compare).filter((p, i, all) => i === 0 || compare(p, all[i - 1] as Path) !== 0)
}
