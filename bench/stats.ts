import { readdirSync } from 'node:fs'
import { parseArgs } from 'node:util'

/** What the bench scripts share: reading their flags and templates, the median of their runs, and how they end. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

/** Runs a bench script's main, exiting 1 with its message when it fails. */
export function run(main: () => Promise<void>): void {
  main().catch((e: unknown) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  })
}

/** A flag that must be a positive number. */
export function positive(flag: string, text: string | undefined): number {
  const n = Number(text)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${flag} must be a positive number, not ${text}`)
  return n
}

/** The templates named NAME.<extension> in `dir`, sorted, or those `only` lists (comma-separated). */
export function templateNames(dir: string, only: string, extension: string): string[] {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith(extension))
    .map((f) => f.slice(0, -extension.length))
    .sort()
  if (names.length === 0) throw new Error(`no ${extension} templates in ${dir}`)
  if (only === '') return names
  const picked = only.split(',')
  for (const name of picked)
    if (!names.includes(name)) throw new Error(`no template named "${name}${extension}" in ${dir}`)
  return picked
}

/** The flags every engine-section script takes: where the templates are, the time budget per run, runs, a subset. */
export function benchFlags(): { dir: string; budget: number; runs: number; only: string } {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: 'bench/templates' },
      budget: { type: 'string', default: '300' },
      runs: { type: 'string', default: '5' },
      only: { type: 'string', default: '' },
    },
  })
  return {
    dir: values.dir ?? 'bench/templates',
    budget: positive('budget', values.budget),
    runs: positive('runs', values.runs),
    only: values.only ?? '',
  }
}
