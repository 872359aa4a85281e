/**
 * A line diff of two texts, as `-` (only before), `+` (only after) and ` `
 * (both) lines: a longest common subsequence of the lines, after their
 * common start and end are set aside. The table it takes is bounded: past
 * MAX_CELLS, the differing middle is shown as removed, then added.
 */
export const MAX_CELLS = 4_000_000

export type DiffLine = `${' ' | '-' | '+'}${string}`

export function lineDiff(before: readonly string[], after: readonly string[]): DiffLine[] {
  let start = 0
  while (start < before.length && start < after.length && before[start] === after[start]) start++
  let end = 0
  while (
    end < before.length - start &&
    end < after.length - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  ) {
    end++
  }
  const a = before.slice(start, before.length - end)
  const b = after.slice(start, after.length - end)
  const same = (lines: readonly string[]) => lines.map((line): DiffLine => ` ${line}`)
  return [...same(before.slice(0, start)), ...middle(a, b), ...same(before.slice(before.length - end))]
}

function middle(a: readonly string[], b: readonly string[]): DiffLine[] {
  const removed = a.map((line): DiffLine => `-${line}`)
  const added = b.map((line): DiffLine => `+${line}`)
  if (a.length === 0 || b.length === 0 || (a.length + 1) * (b.length + 1) > MAX_CELLS) return [...removed, ...added]
  // lcs[i * w + j]: the length of a longest common subsequence of a[i..] and b[j..].
  const w = b.length + 1
  const lcs = new Uint32Array((a.length + 1) * w)
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const below = lcs[(i + 1) * w + j] as number
      const right = lcs[i * w + j + 1] as number
      lcs[i * w + j] = a[i] === b[j] ? (lcs[(i + 1) * w + j + 1] as number) + 1 : Math.max(below, right)
    }
  }
  const lines: DiffLine[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push(` ${a[i++]}`)
      j++
    } else if ((lcs[(i + 1) * w + j] as number) >= (lcs[i * w + j + 1] as number)) {
      lines.push(`-${a[i++]}`)
    } else {
      lines.push(`+${b[j++]}`)
    }
  }
  while (i < a.length) lines.push(`-${a[i++]}`)
  while (j < b.length) lines.push(`+${b[j++]}`)
  return lines
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
