// What the step budget counts, beyond a step a node: the work that grows
// with the data or the template's text, so that no template can make an
// execution work for long within its budget. Each test bounds the steps an
// execution takes from below (it fails with a TimeoutError under a budget
// smaller than its work) or from above (it finishes within a budget), never
// the time it takes.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { parse } from '../../../lib/template'
import type { ExecuteOptions, TemplateFunction } from '../../../lib/template'

/** Whether executing `text` finishes within `maxSteps`: false on the budget's TimeoutError; anything else throws. */
async function fits(text: string, data: unknown, maxSteps: number, options: ExecuteOptions = {}): Promise<boolean> {
  try {
    await parse('t', text).execute(data, { ...options, maxSteps })
    return true
  } catch (e) {
    if (e instanceof DOMException && e.name === 'TimeoutError') return false
    throw e
  }
}

afterEach(() => {
  vi.restoreAllMocks()
})

/** 63 keys of 16,000 characters sharing all but their last three: every comparison reads a whole key. */
function longKeys(): Record<string, number> {
  const prefix = 'k'.repeat(16_000)
  return Object.fromEntries(Array.from({ length: 63 }, (_, i) => [prefix + String(i).padStart(3, '0'), i]))
}

describe('sorting a map’s keys', () => {
  // Before: 16 characters' worth a key whatever its length, and a map under 64 keys sorted again at each use.
  // Sorting 63 keys of 16,000 characters: about 1,000,000 characters × log2(63), some 94,000 steps.
  const m = longKeys()

  it('is charged by the length of the keys, for range and for printing alike', async () => {
    expect(await fits('{{range $.m}}{{end}}', { m }, 50_000)).toBe(false)
    expect(await fits('{{$x := print $.m}}', { m }, 50_000)).toBe(false)
    expect(await fits('{{range $.m}}{{end}}', { m }, 200_000)).toBe(true)
  })

  it('happens once an execution for every map, however small, for range and printing together', async () => {
    // Printing copies the keys each time (16,000 steps); sorting them every time would take 10 × 110,000.
    const text = '{{range 10}}{{range $.m}}{{end}}{{$x := print $.m}}{{end}}'
    expect(await fits(text, { m }, 400_000)).toBe(true)
  })

  it('is charged again for a new map each time', async () => {
    const fresh: TemplateFunction = () => ({ ...m })
    const text = '{{range 20}}{{range fresh}}{{end}}{{end}}'
    expect(await fits(text, null, 1_000_000, { funcs: { fresh } })).toBe(false)
  })
})

describe('comparing long strings', () => {
  // Before: lt compared them in a loop a character at a time, 2.3 ms a call for a million characters.
  it('is native, one character at a time only near the first difference', async () => {
    const a = 'x'.repeat(200_000) + 'a'
    const b = 'x'.repeat(200_000) + 'b'
    const charCodeAt = vi.spyOn(String.prototype, 'charCodeAt')
    const out = await parse('t', '{{lt .a .b}} {{lt .b .a}} {{le .a .a}}').execute({ a, b })
    expect(out).toBe('true false true')
    expect(charCodeAt.mock.calls.length).toBeLessThan(1000)
  })

  it('orders code points above U+FFFF after U+E000 to U+FFFF, as Go’s bytes do, past any length', async () => {
    const prefix = 'x'.repeat(100_000)
    const data = { a: `${prefix}\u{1F600}`, b: `${prefix}\uFFFF`, c: `${prefix}\uD7FF` }
    const out = await parse('t', '{{lt .b .a}} {{lt .a .b}} {{lt .c .a}} {{lt .c .b}}').execute(data)
    expect(out).toBe('true false true true')
  })
})

describe('%x of a float with a huge precision', () => {
  // Before: every digit past the 13 the mantissa holds was made with BigInt arithmetic.
  it('writes the zeros past the mantissa at once', async () => {
    const expected = `0x1.8${'0'.repeat(3_999_999)}p+00`
    const repeat = vi.spyOn(String.prototype, 'repeat')
    const out = await parse('t', '{{printf "%.4000000x" 1.5}}').execute(null)
    expect(repeat.mock.calls.some(([count]) => Number(count) >= 3_999_980)).toBe(true)
    expect(out).toBe(expected)
  })
})

describe('printf', () => {
  // Before: the format string was read for free (2 ms a call for a million characters), its literal text was
  // charged as if formatted, and %x of a string encoded all of it whatever its precision.
  it('charges the format string it reads', async () => {
    // 100,000 characters: some 1,560 steps a call.
    const fmt = `%${'0'.repeat(100_000)}d`
    expect(await fits('{{range 100}}{{printf $.fmt 1}}{{end}}', { fmt }, 100_000)).toBe(false)
    expect(await fits('{{range 100}}{{printf $.fmt 1}}{{end}}', { fmt }, 400_000)).toBe(true)
  })

  it('charges its literal text as copied, not as formatted', async () => {
    // Read and copied: some 3,100 steps a call; formatted, 48 times the copy.
    const text = 'x'.repeat(100_000)
    expect(await fits('{{range 10}}{{$x := printf $.text}}{{end}}', { text }, 50_000)).toBe(true)
  })

  it('encodes no more of a string for %x than its precision', async () => {
    const encode = vi.spyOn(TextEncoder.prototype, 'encode')
    const out = await parse('t', '{{printf "%.1x|%.3X" .s .s}}').execute({ s: `é${'x'.repeat(1_000_000)}` })
    expect(out).toBe('c3|C3A978')
    expect(Math.max(...encode.mock.calls.map(([s]) => (s ?? '').length))).toBeLessThan(10)
  })
})

describe('the long strings an execution remembers', () => {
  // Before: finding a string among them compared it with another of its length for free; two equal strings of
  // 500,000 characters that are not one string (as JSON makes them) were compared whole at every call.
  const a = 'x'.repeat(500_000)
  const data = JSON.parse(JSON.stringify({ a, b: a })) as { a: string; b: string }

  it('are looked up at a cost: comparing a string with one remembered reads it', async () => {
    // 2,000 lookups of 500,000 characters, compared natively: some 490,000 steps.
    const text = '{{range 1000}}{{$x := len $.a}}{{$y := len $.b}}{{end}}'
    expect(await fits(text, data, 300_000)).toBe(false)
    expect(await fits(text, data, 600_000)).toBe(true)
  })

  it('cost far less to look up than to encode again', async () => {
    // Encoding a string of 500,000 characters costs some 7,800 steps; 2,000 of them, 15 million.
    const text = '{{range 1000}}{{$x := index $.a 7}}{{$y := slice $.b 1 2}}{{end}}'
    expect(await fits(text, data, 600_000)).toBe(true)
  })
})

describe('variables', () => {
  // Before: each use scanned every variable in scope for free: 10,000 of them, then a loop reading the first,
  // ran for 40 s within the default budget.
  const declarations = Array.from({ length: 10_000 }, (_, i) => `{{$v${i} := ${i}}}`).join('')

  it('are looked up at a cost: the variables scanned to find one', async () => {
    // Each use of $v0 scans 10,000 variables: some 156 steps.
    const text = `${declarations}{{range 1000}}{{$v0}}{{end}}`
    expect(await fits(text, null, 100_000)).toBe(false)
    expect(await fits(text, null, 250_000)).toBe(true)
  })

  it('cost nothing more when found near the top', async () => {
    const text = `${declarations}{{range 1000}}{{$v9999}}{{$v9990 = 1}}{{end}}`
    expect(await fits(text, null, 30_000)).toBe(true)
  })

  it('are copied at a cost where a pending branch renders aside', async () => {
    // A branch on a pending value copies the 10,000 variables in scope to render aside: some 2,500 steps each.
    const later: TemplateFunction = async () => true
    const text = `${declarations}{{range 100}}{{if later}}x{{end}}{{end}}`
    expect(await fits(text, null, 100_000, { funcs: { later } })).toBe(false)
    expect(await fits(text, null, 400_000, { funcs: { later } })).toBe(true)
  })
})
