// Issue 27 follow-up: our own record schemas (jsonschema/, checked by
// @cfworker/json-schema) bound every keyword whose check is super-linear.
// The validator compares every pair of items for `uniqueItems` even when
// the array fails `maxItems`, so the generator moves each `uniqueItems`
// under `if: {maxItems}`; a prompt's `tools` has at most 128 items, as many
// as a chat request offers.
import { describe, expect, it } from 'vitest'
import { explainInvalid } from '../../lib/catalog/validate'
import * as SCHEMAS from '../../lib/catalog/schemas.generated'
import { MAX_UNIQUE_ITEMS } from '../../lib/catalog/schema-safety'

/** `items` behind a proxy that counts how many times an item is read. */
function counted(items: unknown[]): { array: unknown[]; reads: () => number } {
  let reads = 0
  const array = new Proxy(items, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++
      return Reflect.get(target, key, receiver) as unknown
    },
  })
  return { array, reads: () => reads }
}

describe("a prompt's tools", () => {
  it('are at most 128, worded as Ajv words maxItems', () => {
    const tools = Array.from({ length: 129 }, (_, i) => `t${i}`)
    expect(explainInvalid(SCHEMAS.PROMPT_SCHEMA, { prompt: 'x', tools })).toBe(
      '$.tools must NOT have more than 128 items',
    )
    expect(explainInvalid(SCHEMAS.PROMPT_SCHEMA, { prompt: 'x', tools: tools.slice(1) })).toBeUndefined()
  })

  it('50,000 of them are checked in linear work: no pair of them compared', () => {
    const n = 50_000
    const { array, reads } = counted(Array.from({ length: n }, (_, i) => `t${i}`))
    expect(explainInvalid(SCHEMAS.PROMPT_SCHEMA, { prompt: 'x', tools: array })).toBe(
      '$.tools must NOT have more than 128 items',
    )
    // Each item is read a few times (its schema's checks); a pairwise comparison would read n^2 = 2.5e9.
    expect(reads()).toBeLessThan(10 * n)
  })

  it("an extension's prompt is bound the same", () => {
    const tools = Array.from({ length: 200 }, () => 'same')
    const extension = {
      name: 'e',
      version: '1',
      publisher: 'p',
      contributes: { prompts: [{ name: 'p', prompt: 'x', tools }] },
    }
    expect(explainInvalid(SCHEMAS.EXTENSION_SCHEMA, extension)).toContain(
      '$.contributes.prompts[0].tools must NOT have more than 128 items',
    )
  })
})

describe('the generated record schemas', () => {
  it('hold each uniqueItems only behind a maxItems of at most MAX_UNIQUE_ITEMS', () => {
    const unguarded: string[] = []
    const walk = (node: unknown, at: string, guard: number | undefined): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`, undefined))
      if (typeof node !== 'object' || node === null) return
      const record = node as Record<string, unknown>
      if ('uniqueItems' in record && !(guard !== undefined && guard <= MAX_UNIQUE_ITEMS)) unguarded.push(at)
      const max = (record.if as { maxItems?: number } | undefined)?.maxItems
      for (const [k, v] of Object.entries(record)) walk(v, `${at}/${k}`, k === 'then' ? max : undefined)
    }
    for (const [name, schema] of Object.entries(SCHEMAS)) walk(schema, name, undefined)
    expect(unguarded).toEqual([])
    expect(JSON.stringify(SCHEMAS)).toContain('"uniqueItems":true')
  })
})
