// Issue 27 follow-up: our own record schemas (jsonschema/, compiled by Ajv
// at build time) bound every keyword whose check is super-linear. Ajv checks
// `uniqueItems` in one pass when the items' schema types them as scalars,
// and compares every pair of items otherwise, even when the array fails
// `maxItems`: scripts/generate.mjs refuses the latter. A prompt's `tools`
// has at most 128 items, as many as a chat request offers.
import { readFileSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { explainInvalid } from '../../lib/catalog/validate'
import { validateExtension, validatePrompt } from '../../lib/catalog/validators.generated'

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
    expect(explainInvalid(validatePrompt, { prompt: 'x', tools })).toBe('$.tools must NOT have more than 128 items')
    expect(explainInvalid(validatePrompt, { prompt: 'x', tools: tools.slice(1) })).toBeUndefined()
  })

  it('50,000 of them are checked in linear work: no pair of them compared', () => {
    const n = 50_000
    const { array, reads } = counted(Array.from({ length: n }, (_, i) => `t${i}`))
    expect(explainInvalid(validatePrompt, { prompt: 'x', tools: array })).toBe(
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
    expect(explainInvalid(validateExtension, extension)).toContain(
      '$.contributes.prompts[0].tools must NOT have more than 128 items',
    )
  })
})

describe('the record schemas', () => {
  it('hold each uniqueItems only over items typed as scalars, which Ajv checks in one pass', () => {
    const pairwise: string[] = []
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`))
      if (typeof node !== 'object' || node === null) return
      const record = node as Record<string, unknown>
      const types = [(record.items as { type?: unknown } | undefined)?.type ?? []].flat()
      if (record.uniqueItems === true && (types.length === 0 || types.some((t) => t === 'object' || t === 'array')))
        pairwise.push(at)
      for (const [k, v] of Object.entries(record)) walk(v, `${at}/${k}`)
    }
    const files = readdirSync('jsonschema').filter((f) => f.endsWith('.json'))
    const texts = files.map((f) => readFileSync(`jsonschema/${f}`, 'utf8'))
    files.forEach((f, i) => walk(JSON.parse(texts[i] ?? ''), f))
    expect(pairwise).toEqual([])
    expect(texts.join('')).toContain('"uniqueItems": true')
  })
})
