// Issue 27, rows 6, 8 and 9: writes that race each other, or a promotion of
// their label, lose nothing acknowledged and record a change made by other
// means once; a tool's name and module cannot address another tool's key.
// Against the real Redis behind the Upstash bridge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { ServiceError } from '../../lib/errors'
import { promote } from '../../lib/publish'
import { UpstashStore } from '../../lib/store'
import type { Command, CommandStore, Page, Reply, Store, Tree, TreeRequest, Within } from '../../lib/store'
import { callAsAdmin, get, writableRedis } from '../support/harness'
import type { Answer, TestRedis } from '../support/harness'

let db: TestRedis
let env: Env

beforeAll(async () => ({ db, env } = await writableRedis()))
afterAll(() => db.release())

const send = (method: string, path: string, body?: unknown): Promise<Answer> => callAsAdmin(env, method, path, body)

const put = (path: string, body: unknown) => send('PUT', path, body)

/** The prompt text stored at `key`, or null. */
async function promptAt(key: string): Promise<string | null> {
  const value = await db.redis.get<{ prompt: string }>(key)
  return value?.prompt ?? null
}

/**
 * The real store, with another writer that lands between what a caller read
 * and the write it then asks for: before each of the first `times` writes,
 * `meddle` runs to its end. Only the order is arranged; every request is real.
 */
class Meddling implements Store, CommandStore {
  readonly kind = 'upstash'
  writes = 0

  constructor(
    readonly real: UpstashStore,
    readonly meddle: () => Promise<void>,
    public times: number,
  ) {}

  get identity(): string {
    return this.real.identity
  }

  page(prefix: string, after: string, limit: number): Promise<Page> {
    return this.real.page(prefix, after, limit)
  }

  tree(request: TreeRequest): Promise<Tree> {
    return this.real.tree(request)
  }

  values(keys: readonly string[]): Promise<(string | null)[]> {
    return this.real.values(keys)
  }

  valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within> {
    return this.real.valuesWithin(keys, maxBytes)
  }

  async transaction(commands: readonly Command[], writes: boolean): Promise<Reply[]> {
    if (writes) {
      this.writes++
      if (this.times-- > 0) await this.meddle()
    }
    return this.real.transaction(commands, writes)
  }
}

function realStore(): UpstashStore {
  return new UpstashStore({
    url: db.env.UPSTASH_REDIS_REST_URL as string,
    token: db.env.UPSTASH_REDIS_REST_TOKEN as string,
    timeoutMs: 5000,
  })
}

describe('promote, with writes into its label (row 6)', () => {
  it('reads again when a PUT into the label lands between its read and its commit: the PUT is promoted, not deleted', async () => {
    await put('/api/prompts/cas.a?label=cas', { prompt: 'label a' })
    await put('/api/prompts/cas.b?label=cas', { prompt: 'label b' })
    let meddled: Answer | undefined
    const store = new Meddling(
      realStore(),
      async () => {
        meddled = await put('/api/prompts/cas.a?label=cas', { prompt: 'written meanwhile' })
      },
      1,
    )
    const promotions = await promote(store, 'cas', { historyLimit: 50 })
    expect(meddled?.status).toBe(200)
    // The first commit found cas.a changed and wrote nothing; the second promoted what the PUT wrote.
    expect(store.writes).toBe(2)
    expect(promotions.map(({ id, after }) => [id, after])).toEqual([
      ['cas.a', JSON.stringify({ prompt: 'written meanwhile' })],
      ['cas.b', JSON.stringify({ prompt: 'label b' })],
    ])
    expect(await promptAt('shenma:templates:cas:a')).toBe('written meanwhile')
    expect(await promptAt('shenma:templates:cas:b')).toBe('label b')
    expect(await db.redis.keys('shenma:labels:cas:*')).toEqual([])
    const versions = await get(env, '/api/prompts/cas.a/versions')
    expect(versions.body.data).toMatchObject([{ version: 1, message: 'promoted from label cas' }])
  })

  it('gives up with 409 CONFLICT after 5 attempts when every one is raced, having written nothing', async () => {
    await put('/api/prompts/busy.a?label=busy', { prompt: 'label 0' })
    await put('/api/prompts/busy.a', { prompt: 'base' })
    let n = 0
    const store = new Meddling(
      realStore(),
      async () => {
        expect((await put('/api/prompts/busy.a?label=busy', { prompt: `label ${++n}` })).status).toBe(200)
      },
      Infinity,
    )
    const refused = await promote(store, 'busy', { historyLimit: 50 }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ServiceError)
    expect(refused).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/busy.*5 times/) })
    expect(store.writes).toBe(5)
    expect(await promptAt('shenma:labels:busy:templates:busy:a')).toBe('label 5')
    expect(await promptAt('shenma:templates:busy:a')).toBe('base')
    expect((await get(env, '/api/prompts/busy.a/versions?label=busy')).body.data).toHaveLength(6)
    expect((await get(env, '/api/prompts/busy.a/versions')).body.data).toHaveLength(1)
  })

  it('loses no acknowledged PUT when 40 race a promotion of their label: each 200 text is in the base or the label', async () => {
    for (let round = 0; round < 3; round++) {
      const label = `race${round}`
      // Half the PUTs change records the label has when the promotion reads it; half add records.
      for (let i = 0; i < 20; i++)
        expect((await put(`/api/prompts/r${round}.p${i}?label=${label}`, { prompt: 'old' })).status).toBe(200)
      const puts = Array.from({ length: 40 }, (_, i) => ({ id: `r${round}.p${i}`, text: `new ${round} ${i}` }))
      const sent = puts.map(({ id, text }) => put(`/api/prompts/${id}?label=${label}`, { prompt: text }))
      const promoted = send('POST', `/api/labels/${label}/promote`)
      const [answers, promotion] = await Promise.all([Promise.all(sent), promoted])
      expect([200, 409]).toContain(promotion.status)
      expect(answers.map(({ status }) => status)).toEqual(puts.map(() => 200))
      for (const { id, text } of puts) {
        const key = id.replaceAll('.', ':')
        const held = [
          await promptAt(`shenma:templates:${key}`),
          await promptAt(`shenma:labels:${label}:templates:${key}`),
        ]
        expect(held, `${id} in round ${round}`).toContain(text)
      }
    }
  })
})

describe('a record changed by other means (row 9)', () => {
  it('gets one version saying so when 20 PUTs race after an out-of-band SET, each PUT one Redis request (and its audit entry one)', async () => {
    expect((await put('/api/prompts/oob.p', { prompt: 'service' })).status).toBe(200)
    await db.redis.set('shenma:templates:oob:p', { prompt: 'written directly' })
    await db.resetRequests()
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => put('/api/prompts/oob.p', { prompt: `put ${i}` })),
    )
    expect(answers.map(({ status }) => status)).toEqual(answers.map(() => 200))
    const requests = await db.requests()
    const listed = (await get(env, '/api/prompts/oob.p/versions')).body.data as {
      version: number
      message: string | null
    }[]
    expect(listed.map(({ version }) => version)).toEqual(Array.from({ length: 22 }, (_, i) => 22 - i))
    const found = listed.filter(({ message }) => message === 'found changed in Redis by other means')
    expect(found.map(({ version }) => version)).toEqual([2])
    const numbers = answers.map(({ body }) => (body.data as { version: number }).version).sort((a, b) => a - b)
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 3))
    expect((await get(env, '/api/prompts/oob.p/versions/2')).body.data).toMatchObject({
      value: { prompt: 'written directly' },
    })
    // The write, then its entry in the audit trail (lib/changes/audit.ts).
    expect(requests).toBe(40)
  })
})

describe("a tool's name and module (row 8)", () => {
  const tool = (module: string, name: string) => ({
    name,
    module,
    type: 'restful',
    description: `${module} ${name}`,
    parameters: {},
    restful: { url: 'http://127.0.0.1:1/x' },
  })

  it("refuse a ':' with 400 naming the field, and write nothing", async () => {
    const byName = await put('/api/tools/translate_zh_en', tool('translate', 'zh:en'))
    expect(byName.status).toBe(400)
    expect(byName.body).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/\$\.name: must match/) })
    const byModule = await put('/api/tools/translate_zh_en', tool('translate:zh', 'en'))
    expect(byModule.status).toBe(400)
    expect(byModule.body.message).toMatch(/\$\.module: must match/)
    expect(await db.redis.keys('*translate*')).toEqual([])
  })

  it('skip a stored record holding one, so that it shadows no tool', async () => {
    expect((await put('/api/tools/translate_zh_en', tool('translate', 'zh_en'))).status).toBe(200)
    // Sorted first (':' before '_'), this record took translate_zh_en's name before.
    await db.redis.set('shenma:tools:translate:zh:en', tool('translate', 'zh:en'))
    const served = await get(env, '/api/tools/translate_zh_en')
    expect(served.status).toBe(200)
    expect(served.body.data).toMatchObject({ name: 'zh_en', module: 'translate' })
  })
})
