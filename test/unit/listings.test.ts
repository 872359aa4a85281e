// Paged listings on the embedded store: walking the cursor with any page
// size lists what one page of them all lists, each record once, also when
// records are added between pages; an extension's prompts may straddle
// pages, and the override rules hold across them.
import { describe, expect, it, vi } from 'vitest'
import { allPages, listEnvironPaths, listExtensions, listPrompts, listTools } from '../../lib/catalog'
import type { PageRequest, Paged } from '../../lib/catalog'
import { ServiceError } from '../../lib/errors'
import { EmbeddedStore } from '../../lib/store'
import type { Store } from '../../lib/store'
import { promptExtension, restTool } from '../support/records'

const tool = (name: string) => restTool('m', name, '/t', { parameters: {} })

const RECORDS: [string, unknown][] = [
  // Extension `a` keeps `a.b.c` from `a.b`; the direct a:x overrides its `x`; the direct a:b:d is invalid and overrides nothing.
  ['shenma:extensions:a', promptExtension('a', ['b.c', 'x', 'y', 'z'])],
  ['shenma:extensions:a:b', promptExtension('a.b', ['c', 'd', 'd', 'e'])],
  ['shenma:extensions:big', promptExtension('big', ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'])],
  ['shenma:extensions:broken', { name: 'broken' }],
  ['shenma:extensions:linter', promptExtension('linter', [], 'tool')],
  ['shenma:extensions:odd', promptExtension('odd', ['ok', 'bad:name', 'ok2'])],
  ['shenma:extensions:x.y', promptExtension('xy', ['p'])],
  ['shenma:templates:a:x', { prompt: 'direct a.x' }],
  ['shenma:templates:a:b:d', { supports: ['chat'] }],
  ['shenma:templates:team:one', { prompt: 'one' }],
  ['shenma:templates:team:two', { prompt: 'two' }],
  ['shenma:templates:zz', { prompt: 'zz' }],
  // `a_b_c`: shenma:tools:a:b_c sorts first and keeps it; shenma:tools:a_b:c is skipped.
  ['shenma:tools:a:b_c', tool('abc')],
  ['shenma:tools:a:b:c', { not: 'a tool' }],
  ['shenma:tools:a_b:c', tool('abc2')],
  ['shenma:tools:m:t1', tool('t1')],
  ['shenma:tools:m:t2', tool('t2')],
  ['shenma:tools:m_t1', tool('t1 again')],
  ...Array.from({ length: 7 }, (_, i): [string, unknown] => [`shenma:environs:v:k${i}`, i]),
  ['shenma:environs:a.b:c', 1],
]

type Lister<T> = (store: Store, request: PageRequest) => Promise<Paged<T>>

/** The pages of a walk with `limit`, `between(n)` giving the store the page after the n-th is read from. */
async function walk<T>(list: Lister<T>, limit: number, between: (n: number) => Store) {
  const items: T[] = []
  const skipped: unknown[] = []
  let cursor: string | undefined
  for (let n = 0; n < 1000; n++) {
    const page = await list(between(n), { cursor, limit })
    expect(page.items.length).toBeLessThanOrEqual(limit)
    items.push(...page.items)
    skipped.push(...page.skipped)
    if (page.next === null) return { items, skipped, pages: n + 1 }
    cursor = page.next
  }
  throw new Error('the walk did not end')
}

/** Each listing, and what tells its items apart. */
const LISTS: [string, Lister<unknown>, (item: unknown) => string][] = [
  ['prompts', listPrompts, (p) => `${(p as { id: string }).id} ${(p as { origin: string }).origin}`],
  ['extensions', listExtensions, (e) => (e as { id: string }).id],
  ['tools', listTools, (t) => `${(t as { id: string }).id} ${(t as { key: string }).key}`],
  ['environs', listEnvironPaths, (path) => path as string],
]

describe('the whole listing, in one page', () => {
  const store = new EmbeddedStore(RECORDS)

  it('lists the prompts in key order, each id once, by the override rules', async () => {
    const { items, skipped, next } = await listPrompts(store, { limit: 1000 })
    expect(items.map((p) => `${p.id} ${p.origin}`)).toEqual([
      'a.b.c extension',
      'a.y extension',
      'a.z extension',
      'a.b.d extension',
      'a.b.e extension',
      ...['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'].map((p) => `big.${p} extension`),
      'odd.ok extension',
      'odd.ok2 extension',
      'a.x direct',
      'team.one direct',
      'team.two direct',
      'zz direct',
    ])
    expect(next).toBeNull()
    expect(skipped.map((s) => s.key)).toEqual([
      'shenma:extensions:x.y',
      'shenma:extensions:a:b',
      'shenma:extensions:broken',
      'shenma:extensions:odd',
      'shenma:extensions:a:b',
      'shenma:templates:a:b:d',
    ])
    expect(skipped[1]?.reason).toBe("contributes prompt 'd' twice; the first is served")
    expect(skipped[4]?.reason).toBe("contributes prompt id 'a.b.c', already taken by shenma:extensions:a")
  })

  it('gives a tool name to its first valid key', async () => {
    const { items, skipped } = await listTools(store, { limit: 1000 })
    expect(items.map((t) => t.key)).toEqual(['shenma:tools:a:b_c', 'shenma:tools:m:t1', 'shenma:tools:m:t2'])
    expect(skipped.map((s) => s.key)).toEqual(['shenma:tools:a:b:c', 'shenma:tools:a_b:c', 'shenma:tools:m_t1'])
  })
})

describe('walking the cursor', () => {
  const store = new EmbeddedStore(RECORDS)

  for (const [name, list, show] of LISTS) {
    for (const limit of [1, 2, 3]) {
      it(`of ${name} with limit ${limit} lists what one page lists, each once, and reports each skip once`, async () => {
        const whole = await list(store, { limit: 1000 })
        const walked = await walk(list, limit, () => store)
        expect(walked.items.map(show)).toEqual(whole.items.map(show))
        const sorted = (skips: unknown[]) => skips.map((s) => JSON.stringify(s)).sort()
        expect(sorted(walked.skipped)).toEqual(sorted(whole.skipped))
        expect(walked.pages).toBeGreaterThan(1)
      })
    }
  }

  it('of prompts filtered by extension narrows the keys read and lists what the filter keeps', async () => {
    const pages = vi.spyOn(store, 'page')
    for (const [filter, expected] of [
      ['a', ['a.b.c', 'a.y', 'a.z', 'a.b.d', 'a.b.e', 'a.x']],
      ['a.b', ['a.b.c', 'a.b.d', 'a.b.e']],
      ['big', ['big.p1', 'big.p2', 'big.p3', 'big.p4', 'big.p5', 'big.p6', 'big.p7']],
      ['team', ['team.one', 'team.two']],
      ['nope', []],
      ['a:b', []],
    ] as const) {
      for (const limit of [1, 2, 1000]) {
        const walked = await walk(
          (s, r) => listPrompts(s, { ...r, extension: filter }),
          limit,
          () => store,
        )
        expect(
          walked.items.map((p) => p.id),
          `${filter} by ${limit}`,
        ).toEqual(expected)
      }
    }
    const prefixes = new Set(pages.mock.calls.map(([prefix]) => prefix))
    expect([...prefixes].every((p) => p !== 'shenma:extensions:' && p !== 'shenma:templates:')).toBe(true)
  })

  it('meets a record added ahead of it once, and not one added behind it', async () => {
    const ahead: [string, unknown][] = [
      ['shenma:extensions:zed', promptExtension('zed', ['q'])],
      ['shenma:templates:team:zzz', { prompt: 'late' }],
    ]
    const behind: [string, unknown][] = [['shenma:extensions:0', promptExtension('0', ['early'])]]
    const grown = new EmbeddedStore([...RECORDS, ...ahead, ...behind])
    for (const limit of [1, 2, 3]) {
      // The records are added once three pages are read: behind the walk, and ahead of it.
      const walked = await walk(listPrompts, limit, (n) => (n < 3 ? store : grown))
      const ids = walked.items.map((p) => p.id)
      expect(
        ids.filter((id) => id === 'zed.q' || id === 'team.zzz'),
        `limit ${limit}`,
      ).toEqual(['zed.q', 'team.zzz'])
      expect(ids).not.toContain('0.early')
      expect(new Set(ids).size).toBe(ids.length)
    }
  })

  it('reads a page in at most four store calls, whatever its size', async () => {
    const many = new EmbeddedStore([
      ...RECORDS,
      ...Array.from({ length: 50 }, (_, i): [string, unknown] => [
        `shenma:extensions:e${i}`,
        promptExtension(`e${i}`, ['p', 'q']),
      ]),
    ])
    const pages = vi.spyOn(many, 'page')
    const values = vi.spyOn(many, 'values')
    let cursor: string | undefined
    do {
      pages.mockClear()
      values.mockClear()
      const page = await listPrompts(many, { cursor, limit: 7 })
      expect(pages.mock.calls.length + values.mock.calls.length).toBeLessThanOrEqual(4)
      expect(values.mock.calls.flatMap(([keys]) => keys).length).toBeLessThanOrEqual(7 * 10 + 10)
      cursor = page.next ?? undefined
    } while (cursor !== undefined)
  })

  it('follows every page with allPages', async () => {
    const whole = await listTools(store, { limit: 1000 })
    const all = await allPages((request) => listTools(store, { ...request, limit: 1 }))
    expect(all.items.map((t) => t.key)).toEqual(whole.items.map((t) => t.key))
  })
})

describe('a page request', () => {
  const store = new EmbeddedStore(RECORDS)
  const refused = async (run: () => Promise<unknown>) => {
    const error = await run().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ServiceError)
    return { code: (error as ServiceError).code, message: (error as ServiceError).message }
  }

  it('refuses a limit outside 1 to 1000', async () => {
    for (const limit of [0, 1001, 1.5, -1])
      expect(await refused(() => listTools(store, { limit }))).toEqual({
        code: 'BAD_REQUEST',
        message: 'the limit must be an integer from 1 to 1000',
      })
  })

  it('refuses a cursor no listing of its kind gave', async () => {
    const tools = await listTools(store, { limit: 1 })
    const prompts = await listPrompts(store, { limit: 2 })
    const b64 = (text: string) => Buffer.from(text).toString('base64url')
    const bad = [
      '!!',
      'not base64 at all',
      b64('plain text'),
      b64('["shenma:tools:x", 0]'),
      b64('["shenma:extensions:a", -1]'),
      b64('[]'),
      b64('{"key": "shenma:tools:x"}'),
      prompts.next as string,
      'x'.repeat(9000),
    ]
    for (const cursor of bad)
      expect(await refused(() => listTools(store, { cursor })), cursor.slice(0, 40)).toMatchObject({
        code: 'BAD_REQUEST',
      })
    // A position inside a record is a prompt listing's only, and only inside an extension.
    expect(await refused(() => listPrompts(store, { cursor: b64('["shenma:templates:a", 2]') }))).toMatchObject({
      code: 'BAD_REQUEST',
    })
    expect(await refused(() => listPrompts(store, { cursor: tools.next as string }))).toMatchObject({
      code: 'BAD_REQUEST',
    })
    expect((await listPrompts(store, { cursor: b64('["shenma:extensions:big", 3]'), limit: 1 })).items[0]?.id).toBe(
      'big.p4',
    )
  })
})
