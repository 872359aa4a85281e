import { diffOps } from '../public/playground/diff.js'

/** Differing lines a side the diff aligns at most. */
export { MAX_LINES } from '../public/playground/diff.js'

export type DiffLine = `${' ' | '-' | '+'}${string}`

const MARK = { same: ' ', del: '-', add: '+' } as const

interface DiffAnswer {
  ops?: { op: keyof typeof MARK; text: string }[]
  head: number
  tail: number
}

/**
 * A line diff of two texts, as `-` (only before), `+` (only after) and ` `
 * (both) lines: the playground's diff (public/playground/diff.js: a longest
 * common subsequence of the lines, after their common start and end are set
 * aside). Its table is bounded: past MAX_LINES differing lines a side, the
 * differing middle is shown as removed, then added.
 */
export function lineDiff(before: readonly string[], after: readonly string[]): DiffLine[] {
  const diff = diffOps(before, after) as DiffAnswer
  if (diff.ops) return diff.ops.map(({ op, text }): DiffLine => `${MARK[op]}${text}`)
  const { head, tail } = diff
  return [
    ...before.slice(0, head).map((line): DiffLine => ` ${line}`),
    ...before.slice(head, before.length - tail).map((line): DiffLine => `-${line}`),
    ...after.slice(head, after.length - tail).map((line): DiffLine => `+${line}`),
    ...before.slice(before.length - tail).map((line): DiffLine => ` ${line}`),
  ]
}

/**
 * The changed lines of a diff with `context` unchanged lines around each
 * change; a run of unchanged lines left out is one ` ...` line.
 */
export function withContext(lines: readonly DiffLine[], context = 3): DiffLine[] {
  const near = new Uint8Array(lines.length)
  lines.forEach((line, i) => {
    if (line[0] === ' ') return
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) near[k] = 1
  })
  const shown: DiffLine[] = []
  lines.forEach((line, i) => {
    if (near[i]) shown.push(line)
    else if (i === 0 || near[i - 1]) shown.push(' ...')
  })
  return shown
}
