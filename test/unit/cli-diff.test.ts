// The line diff `promote --dry-run` prints: a longest common subsequence of
// lines, bounded, shown with a little context.
import { describe, expect, it } from 'vitest'
import { MAX_LINES, lineDiff, withContext } from '../../cli/diff'
import { header, recordDiff } from '../../cli/promote'

describe('lineDiff', () => {
  it('keeps common lines and marks the rest removed or added, in order', () => {
    expect(lineDiff(['a', 'b', 'c', 'd'], ['a', 'c', 'x', 'd'])).toEqual([' a', '-b', ' c', '+x', ' d'])
    expect(lineDiff([], ['a'])).toEqual(['+a'])
    expect(lineDiff(['a'], [])).toEqual(['-a'])
    expect(lineDiff(['a', 'b'], ['a', 'b'])).toEqual([' a', ' b'])
  })

  it('finds a longest common subsequence, not merely a common start and end', () => {
    const diff = lineDiff(['x', 'a', 'b', 'c', 'y'], ['z', 'a', 'b', 'c', 'w'])
    expect(diff.filter((line) => line.startsWith(' '))).toEqual([' a', ' b', ' c'])
    expect(diff.filter((line) => !line.startsWith(' ')).sort()).toEqual(['+w', '+z', '-x', '-y'])
  })

  it('shows a middle too large to align as removed then added, without building the table', () => {
    const side = MAX_LINES + 1
    const before = Array.from({ length: side }, (_, i) => `b${i}`)
    const after = Array.from({ length: side }, (_, i) => `a${i}`)
    const diff = lineDiff(['same', ...before, 'end'], ['same', ...after, 'end'])
    expect(diff).toEqual([' same', ...before.map((l) => `-${l}`), ...after.map((l) => `+${l}`), ' end'])
  })
})

describe('withContext', () => {
  it('keeps 3 unchanged lines around each change and marks each run left out', () => {
    const lines = lineDiff(
      Array.from({ length: 20 }, (_, i) => `l${i}`),
      Array.from({ length: 20 }, (_, i) => (i === 10 ? 'changed' : `l${i}`)),
    )
    expect(withContext(lines)).toEqual([
      ' ...',
      ' l7',
      ' l8',
      ' l9',
      '-l10',
      '+changed',
      ' l11',
      ' l12',
      ' l13',
      ' ...',
    ])
  })
})

describe("promote's dry-run per record", () => {
  const promotion = { kind: 'environs', id: 'vscode.rules', key: 'shenma:environs:vscode:rules' } as const

  it('marks an added, a deleted (or hidden) and a changed record', () => {
    expect(header({ ...promotion, before: null, after: '"x"' })).toBe(
      '+ environs vscode.rules (shenma:environs:vscode:rules)',
    )
    expect(header({ ...promotion, before: '"x"', after: null })).toBe(
      '- environs vscode.rules (shenma:environs:vscode:rules)',
    )
    expect(header({ ...promotion, before: '"x"', after: '{"$shenma":"tombstone"}' })).toMatch(/^- /)
    expect(header({ ...promotion, before: '"x"', after: '"y"' })).toMatch(/^~ /)
  })

  it('diffs pretty-printed JSON, and bare text as it is', () => {
    expect(recordDiff({ before: '{"a":1,"b":2}', after: '{"a":1,"b":3}' })).toEqual([
      ' {',
      '   "a": 1,',
      '-  "b": 2',
      '+  "b": 3',
      ' }',
    ])
    expect(recordDiff({ before: 'go', after: null })).toEqual(['-go'])
  })
})
