// The depth limit of JSON data, and the walks over it that must not recurse.
import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH, deepFreeze, jsonPrefix, nestedDeeperThan, textNestedDeeperThan } from '../../lib/json'

/** `depth` arrays, one inside the other, built without recursion. */
function nested(depth: number, leaf: unknown = 1): unknown {
  let value: unknown = leaf
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

describe('nestedDeeperThan', () => {
  it('counts arrays and objects as levels, and scalars as none', () => {
    expect(MAX_JSON_DEPTH).toBe(100)
    expect(nestedDeeperThan('text', 0)).toBe(false)
    expect(nestedDeeperThan([], 0)).toBe(true)
    expect(nestedDeeperThan({ a: { b: [1] } }, 3)).toBe(false)
    expect(nestedDeeperThan({ a: { b: [1] } }, 2)).toBe(true)
    expect(nestedDeeperThan(nested(100))).toBe(false)
    expect(nestedDeeperThan(nested(101))).toBe(true)
  })

  it('finds the deep branch among wide ones', () => {
    const wide = Array.from({ length: 10_000 }, (_, i) => ({ i, tags: ['a'] }))
    expect(nestedDeeperThan([...wide, nested(100)])).toBe(true)
    expect(nestedDeeperThan([...wide, nested(98)])).toBe(false)
  })

  it('walks a value a million levels deep without running out of stack', () => {
    expect(nestedDeeperThan(nested(1_000_000))).toBe(true)
  })
})

describe('textNestedDeeperThan', () => {
  /** A value nested `depth` levels, with strings that look like brackets and escapes on the way. */
  const nested = (depth: number) => {
    let value: unknown = '}}]] \\" {{[['
    for (let i = 0; i < depth; i++) value = i % 2 ? [value, '\\', '"]'] : { '{': value, 'a"[': '\\\\' }
    return JSON.stringify(value)
  }

  it('finds what nestedDeeperThan finds of the parse, at and around the limit', () => {
    for (const depth of [0, 1, 2, 5, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 3 * MAX_JSON_DEPTH]) {
      for (const limit of [1, 5, MAX_JSON_DEPTH]) {
        const text = nested(depth)
        expect(textNestedDeeperThan(text, limit), `${depth} levels, limit ${limit}`).toBe(
          nestedDeeperThan(JSON.parse(text), limit),
        )
      }
    }
  })

  it('counts siblings once each, not their sum', () => {
    const text = JSON.stringify(Array.from({ length: 500 }, () => [[[]]]))
    expect(textNestedDeeperThan(text, 4)).toBe(false)
    expect(textNestedDeeperThan(text, 3)).toBe(true)
  })
})

describe('deepFreeze', () => {
  it('freezes every level, a million of them included', () => {
    const value = nested(1_000_000, { leaf: true }) as unknown[]
    deepFreeze(value)
    let node: unknown = value
    let thawed = 0
    while (Array.isArray(node)) {
      if (!Object.isFrozen(node)) thawed++
      node = node[0]
    }
    expect(thawed).toBe(0)
    expect(Object.isFrozen(node)).toBe(true)
  })
})

describe('jsonPrefix', () => {
  const values: unknown[] = [
    null,
    true,
    -1.5e300,
    'a "quoted"\nline é',
    [],
    {},
    [1, [2, { a: null }], 'x'],
    { a: 1, b: [true, { c: 'd' }], 'e"f': {} },
    { skipped: undefined, kept: 1 },
  ]

  it('writes what JSON.stringify writes, whole, when it fits', () => {
    for (const value of values) expect(jsonPrefix(value, 1000)).toEqual({ text: JSON.stringify(value), whole: true })
  })

  it('writes its start when it does not, whatever the cut', () => {
    for (const value of values) {
      const full = JSON.stringify(value)
      for (let max = 0; max < full.length; max++)
        expect(jsonPrefix(value, max)).toEqual({ text: full.slice(0, max), whole: false })
    }
  })

  it("stops once past the bound: a 10 MB value's first 100 characters are written from its first members only", () => {
    let visited = 0
    const members = new Proxy(
      Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, 'x'.repeat(100)])),
      {
        get(target, name) {
          visited++
          return Reflect.get(target, name)
        },
      },
    )
    const { text, whole } = jsonPrefix({ big: members, long: 'y'.repeat(10_000_000) }, 100)
    expect(whole).toBe(false)
    expect(text).toBe(`{"big":{"k0":"${'x'.repeat(100)}`.slice(0, 100))
    expect(visited).toBeLessThan(5)
  })
})
