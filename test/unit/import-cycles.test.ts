// No import circles in lib/, functions/ or cli/: a circle makes a module's load order (and so what it sees of
// another at load) depend on which file is imported first. Type-only imports count too: they cannot
// misorder a load, but a circle of types is still two files that cannot be read one without the other.
// And the template engine has one door, lib/template/index.ts: its folders are its own to rearrange.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')

/** The .ts file a relative specifier names: `./x` is `./x.ts` or `./x/index.ts`. */
function fileOf(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier)
  return [base, `${base}.ts`, join(base, 'index.ts')].find((f) => f.endsWith('.ts') && existsSync(f))
}

/** Every relative import and re-export of a file (static, side-effect or dynamic), as files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specifiers = text.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)'(\.{1,2}\/[^']*)'/g)
  return [...specifiers].flatMap((m) => fileOf(file, m[1] as string) ?? [])
}

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
}

/** One circle through each strongly connected component of the graph (Tarjan's algorithm), as file paths. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const visit = (v: string): void => {
    index.set(v, index.size)
    low.set(v, index.get(v) as number)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    for (let w = stack.pop(); ; w = stack.pop()) {
      onStack.delete(w as string)
      component.push(w as string)
      if (w === v) break
    }
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component)
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return components.map((component) => circleIn(graph, new Set(component)))
}

/** A shortest circle from the component's first file back to it, staying inside the component. */
function circleIn(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0] as string
  const previous = new Map<string, string>()
  const queue = [start]
  for (const v of queue) {
    for (const w of graph.get(v) ?? []) {
      if (w === start) {
        const path = [v]
        for (let p = previous.get(v); p !== undefined; p = previous.get(p)) path.unshift(p)
        return [...path, start]
      }
      if (component.has(w) && !previous.has(w) && w !== start) {
        previous.set(w, v)
        queue.push(w)
      }
    }
  }
  return [start]
}

function graphOf(dirs: readonly string[]): Map<string, string[]> {
  const files = dirs.flatMap(sources)
  return new Map(files.map((f) => [relative(root, f), importsOf(f).map((t) => relative(root, t))]))
}

describe('lib/template', () => {
  it('is imported by lib/, functions/ and cli/ only through its index', () => {
    const deep = [...graphOf(['lib', 'functions', 'cli'])]
      .filter(([file]) => !file.startsWith('lib/template/'))
      .flatMap(([file, targets]) => targets.map((target) => `${file} -> ${target}`))
      .filter((edge) => /-> lib\/template\/(?!index\.ts$)/.test(edge))
    expect(deep).toEqual([])
  })

  it('imports down its folders: index.ts, funcs/, exec/, parse/, fmt/, then the shared files at the top', () => {
    const order = ['index.ts', 'funcs', 'exec', 'parse', 'fmt']
    const rank = (file: string): number => {
      const first = relative('lib/template', file).split('/')[0] as string
      return order.includes(first) ? order.indexOf(first) : order.length
    }
    const upward = [...graphOf(['lib/template'])]
      .flatMap(([file, targets]) => targets.map((target) => [file, target] as const))
      .filter(([file, target]) => target.startsWith('lib/template/') && rank(target) < rank(file))
      .map(([file, target]) => `${file} -> ${target}`)
    expect(upward).toEqual([])
  })
})

describe('import circles', () => {
  it('none in lib/, functions/ or cli/', () => {
    expect(circles(graphOf(['lib', 'functions', 'cli'])).map((c) => c.join(' -> '))).toEqual([])
  })

  it('are found, each listed from its first file', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ])
    expect(circles(graph)).toEqual([
      ['d', 'd'],
      ['a', 'b', 'c', 'a'],
    ])
  })

  it('are made of every kind of relative import', () => {
    const dir = mkdtempSync(join(tmpdir(), 'imports-'))
    const files = ['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e/index.ts', 'f.ts']
    mkdirSync(join(dir, 'e'))
    for (const f of files.slice(1)) writeFileSync(join(dir, f), '')
    const text = [
      "import type { B } from './b'",
      "export { c } from './c.ts'",
      "const d = import('./d')",
      "import {\n  e,\n} from './e'",
      "import './f'",
      "import { x } from 'vitest'",
    ]
    writeFileSync(join(dir, 'a.ts'), text.join('\n'))
    try {
      expect(importsOf(join(dir, 'a.ts')).map((f) => relative(dir, f))).toEqual(files.slice(1))
    } finally {
      rmSync(dir, { recursive: true })
    }
  })
})
