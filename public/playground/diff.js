// A line diff of two texts, for the versions panel: the common head and tail
// set aside, the middle compared by its longest common subsequence. Pure (no
// DOM), so that Node's tests import it as the page does, and the CLI's
// promote diff bundles it. Bounded before the table is built: past MAX_LINES
// differing lines a side the answer is `{tooLarge}` instead of a diff (the
// table is then at most 2,000 × 2,000 16-bit cells, 8 MB).

/** Lines a side at most (below 65,536: a common run's length fits the table's 16 bits). */
export const MAX_LINES = 2000

/**
 * The lines of `a` and `b` as a list of operations, in order:
 * `{op: 'same' | 'del' | 'add', text, a?, b?}` (`a`, `b`: the line's number,
 * from 1, in that side), or `{tooLarge: true, lines: [a's, b's]}`.
 */
export function diffLines(a, b) {
  return diffOps(a.split('\n'), b.split('\n'))
}

/**
 * diffLines of two lists of lines (the CLI's promote diff uses it too). Too
 * large when what differs between the common head and tail passes MAX_LINES
 * a side: then `{tooLarge, lines, head, tail}`, the common head's and tail's
 * lengths, to show the middle otherwise.
 */
export function diffOps(left, right) {
  let head = 0
  while (head < left.length && head < right.length && left[head] === right[head]) head++
  let tail = 0
  while (
    tail < left.length - head &&
    tail < right.length - head &&
    left[left.length - 1 - tail] === right[right.length - 1 - tail]
  )
    tail++
  if (left.length - head - tail > MAX_LINES || right.length - head - tail > MAX_LINES)
    return { tooLarge: true, lines: [left.length, right.length], head, tail }
  const ops = []
  for (let i = 0; i < head; i++) ops.push({ op: 'same', text: left[i], a: i + 1, b: i + 1 })
  middle(left, right, head, left.length - tail, head, right.length - tail, ops)
  for (let k = tail; k > 0; k--)
    ops.push({ op: 'same', text: left[left.length - k], a: left.length - k + 1, b: right.length - k + 1 })
  return { ops }
}

/** The operations of left[a0..a1) against right[b0..b1), appended to `ops`. */
function middle(left, right, a0, a1, b0, b1, ops) {
  const n = a1 - a0
  const m = b1 - b0
  const width = m + 1
  // lcs[i * width + j]: the longest common subsequence of left[a0+i..a1) and right[b0+j..b1).
  const lcs = new Uint16Array((n + 1) * width)
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * width + j] =
        left[a0 + i] === right[b0 + j]
          ? lcs[(i + 1) * width + j + 1] + 1
          : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1])
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && left[a0 + i] === right[b0 + j]) {
      ops.push({ op: 'same', text: left[a0 + i], a: a0 + i + 1, b: b0 + j + 1 })
      i++
      j++
    } else if (i < n && (j === m || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
      // A removal before an addition where either keeps the longest common part: as `diff -u` shows a change.
      ops.push({ op: 'del', text: left[a0 + i], a: a0 + i + 1 })
      i++
    } else {
      ops.push({ op: 'add', text: right[b0 + j], b: b0 + j + 1 })
      j++
    }
  }
}

/**
 * The operations to show: each change with `context` unchanged lines around
 * it; a longer unchanged run becomes `{op: 'skip', count}`.
 */
export function hunks(ops, context = 3) {
  const changed = ops.map((o) => o.op !== 'same')
  const near = (at) => {
    for (let k = Math.max(0, at - context); k <= Math.min(ops.length - 1, at + context); k++)
      if (changed[k]) return true
    return false
  }
  const shown = []
  for (let at = 0; at < ops.length; at++) {
    if (near(at)) {
      shown.push(ops[at])
      continue
    }
    const last = shown.at(-1)
    if (last?.op === 'skip') last.count++
    else shown.push({ op: 'skip', count: 1 })
  }
  return shown
}
