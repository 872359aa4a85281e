/**
 * Reading a CPU profile of the Worker (bench/miniflare.ts records it): where
 * its samples fell, by function, with the source file each function comes
 * from. The bundle is esbuild's, unminified, and esbuild opens each module's
 * code with a `// path/to/module.ts` comment: a bundle line belongs to the
 * last such comment above it, which names the file without a source map.
 */
import type { CpuProfile } from './miniflare'

/** One function's share of the samples. */
export interface ProfileEntry {
  /** `renderPrompt (lib/render/pipeline.ts)`, or V8's own names: `(garbage collector)`, `(program)`. */
  name: string
  /** Time in the function itself, in ms over the whole profile. */
  selfMs: number
  /** Time in the function and everything it called. */
  totalMs: number
}

export interface ProfileSummary {
  /** Time the isolate ran (every sample but `(idle)`), in ms. */
  busyMs: number
  /** The functions with the most self time, most first. */
  top: ProfileEntry[]
}

const MODULE_COMMENT = /^\/\/ ((?:node_modules\/)?[\w@./-]+\.[cm]?[jt]s)$/

/** The source file of each line of the bundle (0-based line numbers, as V8 gives them). */
export function moduleLines(bundle: string): (line: number) => string | undefined {
  const starts: { line: number; file: string }[] = []
  bundle.split('\n').forEach((text, line) => {
    const m = MODULE_COMMENT.exec(text)
    if (m) starts.push({ line, file: (m[1] as string).replace(/^node_modules\//, '') })
  })
  return (line) => {
    let lo = 0
    let hi = starts.length - 1
    let found: string | undefined
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const start = starts[mid] as { line: number; file: string }
      if (start.line <= line) {
        found = start.file
        lo = mid + 1
      } else hi = mid - 1
    }
    return found
  }
}

/** The `top` functions of a profile by self time, named with their source file. */
export function summarize(
  profile: CpuProfile,
  fileOf: (line: number) => string | undefined,
  top: number,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parents = new Map<number, number>()
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id)
  const nameOf = (id: number): string => {
    const { functionName, url, lineNumber } = (byId.get(id) as CpuProfile['nodes'][number]).callFrame
    if (functionName.startsWith('(')) return functionName
    if (url === '') {
      // workerd's own functions (console.log, Response) are nameless or name a property: their caller says which.
      const parent = parents.get(id)
      const caller = parent === undefined ? undefined : nameOf(parent)
      return `${functionName || '(native)'}${caller === undefined ? '' : ` in ${caller.replace(/ in .*$/, '')}`}`
    }
    const file = url.endsWith('index.js') ? fileOf(lineNumber) : undefined
    const where = file ?? url.split('/').pop()
    // An anonymous function is told by where it is.
    return functionName ? `${functionName} (${where})` : `(anonymous) (${where}:${lineNumber + 1})`
  }
  const self = new Map<string, number>()
  const total = new Map<string, number>()
  let busyUs = 0
  const samples = profile.samples ?? []
  const deltas = profile.timeDeltas ?? []
  samples.forEach((id, i) => {
    // A sample's time is the gap to the next sample.
    const us = deltas[i + 1] ?? 0
    const name = nameOf(id)
    if (name === '(idle)') return
    busyUs += us
    self.set(name, (self.get(name) ?? 0) + us)
    // Each function on the stack once, however often it recurs.
    const onStack = new Set<string>()
    for (let node: number | undefined = id; node !== undefined; node = parents.get(node)) onStack.add(nameOf(node))
    for (const n of onStack) total.set(n, (total.get(n) ?? 0) + us)
  })
  const entries = [...self].map(([name, us]) => ({ name, selfMs: us / 1000, totalMs: (total.get(name) ?? 0) / 1000 }))
  entries.sort((a, b) => b.selfMs - a.selfMs)
  return { busyMs: busyUs / 1000, top: entries.slice(0, top) }
}
