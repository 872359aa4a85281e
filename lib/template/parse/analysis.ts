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
 *
 * Sites say where each read and call is written, for checks that name the
 * place (the CLI's `validate --strict`); the render uses the lists alone.
 */
import { Locator } from './locator'
import { elseBranch } from './nodes'
import type { ArgNode, BranchNode, ListNode, Node, PipeNode, StringNode } from './nodes'
import type { Tree } from './parser'

export type Path = readonly string[]

/** Where in a template set something is written: the template it lies in, Go's line and column there. */
interface Place {
  /** The name of the template (a {{define}}'s, or the one parsed) whose tree holds it. */
  readonly template: string
  readonly line: number
  /** As Go counts an execution error's column: UTF-8 bytes from the line's start, from 0. */
  readonly column: number
}

/** A static path read: a field, `$x.field` or `(pipeline).field` operand, where it is. */
export interface ReadSite extends Place {
  readonly kind: 'read'
  /** From the root data, as `paths` counts it. */
  readonly path: Path
  /** Inside a branch that may not run, or a later and/or operand. */
  readonly conditional: boolean
  /**
   * In the body of a {{with}} over an index result (`{{with index . "opt"}}`),
   * the length of that result's path: when nothing is there, the body does
   * not run, so only what lies below a present value must exist.
   */
  readonly guarded?: number
}

/** A function called, where its name is written. */
export interface CallSite extends Place {
  readonly kind: 'call'
  readonly name: string
  /** The operands it is called with, a piped value counted as Go passes it: last. */
  readonly positional: number
}

export type Site = ReadSite | CallSite

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
  /**
   * Every static read and every call, each in source order within its
   * template, a called template's sites at each call of it (its reads
   * joined onto the call's argument, once per call). Found when first
   * asked for, by a walk of its own: the render never asks. Undefined where
   * the analysis gave up (see analyze).
   */
  readonly sites?: readonly Site[] | undefined
}

/** An analysis whose sites are found when first asked for. */
class Analyzed implements Analysis {
  #sites: (() => readonly Site[] | undefined) | readonly Site[] | undefined

  constructor(
    readonly paths: readonly Path[],
    readonly required: readonly Path[],
    readonly functions: readonly string[],
    sites: () => readonly Site[] | undefined,
  ) {
    this.#sites = sites
  }

  get sites(): readonly Site[] | undefined {
    if (typeof this.#sites === 'function') this.#sites = this.#sites()
    return this.#sites
  }
}

/** Where a value comes from: a path below the dot of the template being read, or nowhere static (undefined). */
type Source = Path | undefined

interface Scope {
  dot: Source
  /** One set of variables for a whole template, whose scopes end with restore(). */
  vars: Variables
  /** Inside a branch that may not run: reads here are not required. */
  conditional: boolean
  /** The path a {{with}} over an index result tested: see ReadSite.guarded. */
  guard?: Path | undefined
}

/** A variable set, and what it was before: whether it was in scope, and its source. */
interface Change {
  readonly name: string
  readonly had: boolean
  readonly source: Source
}

/**
 * The variables in scope and their sources: one map, and the changes to
 * undo where a scope ends (as the parser pops its variables at {{end}}), so
 * that entering a branch copies nothing.
 */
class Variables {
  readonly #sources = new Map<string, Source>([['$', []]])
  readonly #undo: Change[] = []

  get(name: string): Source {
    return this.#sources.get(name)
  }

  set(name: string, source: Source): void {
    this.#undo.push({ name, had: this.#sources.has(name), source: this.#sources.get(name) })
    this.#sources.set(name, source)
  }

  /** Where the changes stand, to restore them to. */
  get mark(): number {
    return this.#undo.length
  }

  restore(mark: number): void {
    while (this.#undo.length > mark) {
      const { name, had, source } = this.#undo.pop() as Change
      if (had) this.#sources.set(name, source)
      else this.#sources.delete(name)
    }
  }
}

/**
 * What a template reads, relative to its dot: a call `{{template "t" .x}}`
 * prefixes t's summary with `x`. Each template is summarised once, however
 * often and with whatever dot it is called.
 */
interface Summary {
  readonly paths: readonly Path[]
  readonly required: readonly Path[]
  readonly sites: readonly Site[]
}

/**
 * The work analysis may do, in path segments built, per character of the
 * template set (plus a floor for small sets). Summaries are linear in the
 * templates, but the paths they stand for need not be: 22 templates each
 * calling the next with .a and with .b read 2^22 paths. Past the budget the
 * analysis gives up on listing them and loads everything.
 */
const WORK_PER_CHARACTER = 16
const WORK_FLOOR = 4096

/** Thrown when the work passes its budget. */
class OverBudget extends Error {}

/**
 * What `name` reads and calls. Whatever goes wrong, the result is usable:
 * when the template set is too intricate to follow within the budget, or
 * the JS stack runs out, every path is loaded (`[[]]`), none is required,
 * no site is known, and execution judges a missing key as it meets it.
 */
export function analyze(templates: ReadonlyMap<string, Tree>, name: string): Analysis {
  let analysis: Summary
  try {
    analysis = analyzeSet(templates, name, false)
  } catch (e) {
    if (!givesUp(e)) throw e
    return { paths: [[]], required: [], functions: functionsOf(templates, name) }
  }
  const sites = () => {
    try {
      return analyzeSet(templates, name, true).sites
    } catch (e) {
      if (!givesUp(e)) throw e
      return undefined
    }
  }
  return new Analyzed(analysis.paths, analysis.required, functionsOf(templates, name), sites)
}

function givesUp(e: unknown): boolean {
  return e instanceof OverBudget || e instanceof RangeError
}

/** What the template set reads from `name`; with `placing`, where too (else no sites). */
function analyzeSet(templates: ReadonlyMap<string, Tree>, name: string, placing: boolean): Summary {
  // A define's tree holds the text of its file: count each text once.
  let size = 0
  for (const text of new Set([...templates.values()].map((t) => t.text))) size += text.length
  let budget = WORK_FLOOR + WORK_PER_CHARACTER * size
  const summaries = new Map<string, Summary>()
  /** Templates being summarised: a call back into one of them cannot use its summary. */
  const summarising = new Set<string>()

  const pay = (work: number): void => {
    budget -= work
    if (budget < 0) throw new OverBudget()
  }

  /** `[...base, ...rest]`, paid for. `base` itself when there is no rest, so that it stays soft. */
  const join = (base: Path, rest: Path): Path => {
    if (rest.length === 0) return base
    pay(base.length + rest.length)
    return [...base, ...rest]
  }
  /** One locator per text: a {{define}}'s tree holds its file's text. */
  const locators = new Map<string, Locator>()
  const locate = (text: string, pos: number) => {
    let locator = locators.get(text)
    if (!locator) locators.set(text, (locator = new Locator(text)))
    return locator.locate(pos)
  }

  const summarise = (treeName: string): Summary | undefined => {
    const known = summaries.get(treeName)
    if (known) return known
    const tree = templates.get(treeName)
    if (!tree || summarising.has(treeName)) return undefined
    summarising.add(treeName)
    const summary = summariseTree(tree)
    summarising.delete(treeName)
    summaries.set(treeName, summary)
    return summary
  }

  const summariseTree = (tree: Tree): Summary => {
    const paths: Path[] = []
    const required: Path[] = []
    const sites: Site[] = []
    /** Paths that stand for index results: loaded, never required (a missing key is no error there). */
    const soft = new WeakSet<Path>()

    const readSite = (pos: number, path: Path, scope: Scope): void => {
      if (!placing) return
      const { line, column } = locate(tree.text, pos)
      const site: ReadSite = { kind: 'read', template: tree.name, line, column, path, conditional: scope.conditional }
      sites.push(guardedBy(site, scope.guard))
    }

    const callSite = (pos: number, name: string, positional: number): void => {
      if (!placing) return
      const { line, column } = locate(tree.text, pos)
      sites.push({ kind: 'call', template: tree.name, line, column, name, positional })
    }

    /** A called template's sites at a call with `arg` (undefined: dynamic, so only its calls are known). */
    const spliceSites = (called: Summary, arg: Source, scope: Scope): void => {
      pay(called.sites.length)
      for (const site of called.sites) {
        if (site.kind === 'call') sites.push(site)
        else if (arg) {
          const joined: ReadSite = {
            ...site,
            path: join(arg, site.path),
            conditional: site.conditional || scope.conditional,
          }
          // A guard inside the called template is the nearer one.
          if (site.guarded === undefined) sites.push(guardedBy(joined, scope.guard))
          else sites.push({ ...joined, guarded: arg.length + site.guarded })
        }
      }
    }

    const read = (source: Source, scope: Scope): void => {
      if (!source) return
      paths.push(source)
      if (!scope.conditional && !soft.has(source)) required.push(source)
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
          // Variables declared in the pipeline, or assigned in the body, are as they were after {{end}}.
          const mark = scope.vars.mark
          // An {{else if}} chain link by link, each inside the else of the one before.
          let outer = scope
          for (let link: BranchNode | undefined = node; link;) {
            // The pipeline runs whenever the link is reached.
            const source = pipe(link.pipe, outer)
            read(source, outer)
            const branch: Scope = { ...outer, conditional: true }
            if (link.type === 'range') {
              // Elements, keys and indexes are dynamic: reading the collection covers them.
              for (const v of link.pipe.decl) branch.vars.set(v.ident[0] as string, undefined)
              walkList(link.list, { ...branch, dot: undefined })
            } else if (link.type === 'with') {
              walkList(link.list, { ...branch, dot: source, guard: source && soft.has(source) ? source : branch.guard })
            } else {
              walkList(link.list, branch)
            }
            const next = elseBranch(link)
            if (!next) walkList(link.elseList, branch)
            outer = branch
            link = next
          }
          scope.vars.restore(mark)
          return
        }
        case 'template': {
          const arg = node.pipe ? pipe(node.pipe, scope) : undefined
          // A call back into a template being summarised goes deeper each time: its reads are
          // dynamic, and so are those of a template that does not exist (execution fails there).
          const called = summarise(node.name)
          if (called) spliceSites(called, arg, scope)
          if (!arg) return
          // The argument is evaluated whatever the template does with it; load it whole only if the
          // template reads nothing of it.
          if (!scope.conditional && !soft.has(arg)) required.push(arg)
          if (!called || called.paths.length === 0) {
            paths.push(arg)
            return
          }
          for (const p of called.paths) paths.push(join(arg, p))
          if (!scope.conditional) {
            for (const p of called.required) {
              const joined = join(arg, p)
              if (!soft.has(joined)) required.push(joined)
            }
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
        if (i > 0) read(source, scope)
        callSite(first.pos, first.ident, rest.length + (i > 0 ? 1 : 0))
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
      const path = keys.map((k) => k.text)
      // A new path either way: the caller marks it soft, and `index .a` must leave a itself as it was.
      return path.length === 0 ? [...base] : join(base, path)
    }

    /**
     * An operand's source, without reading it (the caller decides); a site
     * for each field it reads (a bare `.` or `$x` reads nothing new: its path
     * was sited where it was set), and for a function called as an operand.
     */
    const operand = (arg: ArgNode, scope: Scope): Source => {
      switch (arg.type) {
        case 'dot':
          return scope.dot
        case 'field':
          return sited(arg.pos, scope.dot && join(scope.dot, arg.ident), scope)
        case 'variable': {
          const base = scope.vars.get(arg.ident[0] as string)
          if (arg.ident.length === 1) return base
          return sited(arg.pos, base && join(base, arg.ident.slice(1)), scope)
        }
        case 'chain': {
          const base = arg.node.type === 'pipe' ? parenthesised(arg.node, scope) : operand(arg.node, scope)
          return sited(arg.pos, base && join(base, arg.field), scope)
        }
        case 'pipe':
          return parenthesised(arg, scope)
        case 'identifier':
          // Go calls it with no operands: `{{printf "%v" now}}`.
          callSite(arg.pos, arg.ident, 0)
          return undefined
        default:
          return undefined
      }
    }

    const sited = (pos: number, source: Source, scope: Scope): Source => {
      if (source) readSite(pos, source, scope)
      return source
    }

    /** A parenthesised pipeline's source; what it declares or assigns is undone after it. */
    const parenthesised = (p: PipeNode, scope: Scope): Source => {
      const mark = scope.vars.mark
      const source = pipe(p, scope)
      scope.vars.restore(mark)
      return source
    }

    walkList(tree.root, { dot: [], vars: new Variables(), conditional: false })
    return { paths: minimal(paths), required: unique(required), sites }
  }

  return summarise(name) ?? { paths: [], required: [], sites: [] }
}

/** `site`, guarded by a {{with}} over an index result at `guard` when it reads below it. */
function guardedBy(site: ReadSite, guard: Path | undefined): ReadSite {
  return guard && startsWith(site.path, guard) ? { ...site, guarded: guard.length } : site
}

/**
 * The functions `name` names and those of the templates it can call, however
 * deep: what the parser recorded of each, along the calls, with no walk.
 */
function functionsOf(templates: ReadonlyMap<string, Tree>, name: string): string[] {
  const functions = new Set<string>()
  const reached = new Set([name])
  for (const treeName of reached) {
    const tree = templates.get(treeName)
    if (!tree) continue
    for (const f of tree.functions) functions.add(f)
    for (const called of tree.calls) reached.add(called)
  }
  return [...functions].sort()
}

/** What several templates read and call, together; their sites one after another, unless one's are unknown. */
export function mergeAnalyses(analyses: readonly Analysis[]): Analysis {
  return new Analyzed(
    minimal(analyses.flatMap((a) => a.paths)),
    unique(analyses.flatMap((a) => a.required)),
    [...new Set(analyses.flatMap((a) => a.functions))].sort(),
    () => (analyses.every((a) => a.sites) ? analyses.flatMap((a) => a.sites ?? []) : undefined),
  )
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
