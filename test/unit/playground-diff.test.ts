// The versions panel's line diff (public/playground/diff.js), imported as the
// page imports it: the operations it answers rebuild both texts, a change
// reads as removals then additions, and past its bound it says so instead.
import { describe, expect, it } from 'vitest'
import { diffLines, hunks, MAX_LINES } from '../../public/playground/diff.js'

interface Op {
  op: 'same' | 'del' | 'add' | 'skip'
  text?: string
  a?: number
  b?: number
  count?: number
}
const diff = (a: string, b: string) => diffLines(a, b) as { ops?: Op[]; tooLarge?: true; lines?: number[] }
const side = (ops: Op[], drop: string) =>
  ops
    .filter((o) => o.op !== drop)
    .map((o) => o.text)
    .join('\n')
const short = (ops: Op[]) => ops.map((o) => (o.op === 'skip' ? `~${o.count}` : `${o.op[0]}${o.text}`))

describe('diffLines', () => {
  it('answers only unchanged lines for equal texts, numbered on both sides', () => {
    expect(diff('a\nb', 'a\nb').ops).toEqual([
      { op: 'same', text: 'a', a: 1, b: 1 },
      { op: 'same', text: 'b', a: 2, b: 2 },
    ])
  })

  it('shows a changed line as its removal then its addition, with both sides numbered', () => {
    const { ops } = diff('Hello {{.args.name}}\nbye\nend', 'Hello {{.args.name}}, welcome\nbye\nend\nmore')
    expect(ops).toEqual([
      { op: 'del', text: 'Hello {{.args.name}}', a: 1 },
      { op: 'add', text: 'Hello {{.args.name}}, welcome', b: 1 },
      { op: 'same', text: 'bye', a: 2, b: 2 },
      { op: 'same', text: 'end', a: 3, b: 3 },
      { op: 'add', text: 'more', b: 4 },
    ])
  })

  it('keeps the longest common part in the middle: each side rebuilt from its operations', () => {
    const a = ['x', 'a', 'b', 'c', 'd', 'e', 'y'].join('\n')
    const b = ['x', 'b', 'q', 'd', 'a', 'e', 'y'].join('\n')
    const ops = diff(a, b).ops ?? []
    expect(side(ops, 'add')).toBe(a)
    expect(side(ops, 'del')).toBe(b)
    // b, d, e kept between the common head and tail: 3 + 2 unchanged lines.
    expect(ops.filter((o) => o.op === 'same').map((o) => o.text)).toEqual(['x', 'b', 'd', 'e', 'y'])
  })

  it('diffs against an empty text as all additions', () => {
    expect(short(diff('', 'one\ntwo').ops ?? [])).toEqual(['d', 'aone', 'atwo'])
  })

  it(`says a text of more than ${MAX_LINES} lines is too large, before comparing`, () => {
    const long = Array.from({ length: MAX_LINES + 1 }, (_, i) => `line ${i}`).join('\n')
    expect(diff(long, 'x')).toEqual({ tooLarge: true, lines: [MAX_LINES + 1, 1], head: 0, tail: 0 })
    expect(diff('x', long).tooLarge).toBe(true)
    const most = Array.from({ length: MAX_LINES }, (_, i) => `line ${i}`).join('\n')
    expect(diff(most, most.replace('line 7', 'seven')).ops).toHaveLength(MAX_LINES + 1)
  })
})

describe('hunks', () => {
  it('keeps the changes with their context and folds the unchanged runs between them', () => {
    const a = Array.from({ length: 20 }, (_, i) => `${i}`)
    const b = a.with(2, 'two').with(15, 'fifteen')
    const ops = diff(a.join('\n'), b.join('\n')).ops ?? []
    expect(short(hunks(ops, 1))).toEqual(['~1', 's1', 'd2', 'atwo', 's3', '~10', 's14', 'd15', 'afifteen', 's16', '~3'])
  })

  it('answers no fold when nothing is unchanged far from a change', () => {
    const ops = diff('a\nb', 'a\nc').ops ?? []
    expect(hunks(ops)).toEqual(ops)
  })
})
