// The promote gate against the real Redis behind the Upstash bridge: a label is
// promoted only when the tests of the prompts it affects pass; force is the way past.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { promote as promoteLabel } from '../../lib/publish'
import type { TestCase, TestReport } from '../../lib/prompt-tests/types'
import { UpstashStore } from '../../lib/store'
import { ADMIN, call, callAsAdmin, fetchWorker, get, logged, toolServer, writableRedis } from '../support/harness'
import type { Answer, TestRedis } from '../support/harness'

let db: TestRedis
let env: Env

beforeAll(async () => ({ db, env } = await writableRedis()))
afterAll(() => db.release())

const send = (method: string, path: string, body?: unknown): Promise<Answer> => callAsAdmin(env, method, path, body)

async function put(path: string, body: unknown): Promise<void> {
  const { status, body: answer } = await send('PUT', path, body)
  expect(status, JSON.stringify(answer)).toBe(200)
}

/** The store the Worker writes through, for calling lib/ directly. */
const realStore = () =>
  new UpstashStore({
    url: env.UPSTASH_REDIS_REST_URL as string,
    token: env.UPSTASH_REDIS_REST_TOKEN as string,
    timeoutMs: 5000,
  })

const promote = (label: string, query = '') => send('POST', `/api/labels/${label}/promote${query}`)

/** A case that passes when the render contains `value`. */
const containing = (name: string, value: string, extra: Partial<TestCase> = {}): TestCase => ({
  name,
  assert: [{ type: 'contains', value }],
  ...extra,
})

/** The base's record text of a prompt (its `prompt`), or null. */
async function basePrompt(id: string): Promise<string | null> {
  const raw = await db.redis.get<{ prompt: string }>(`shenma:templates:${id.replaceAll('.', ':')}`)
  return raw?.prompt ?? null
}

describe('the promote gate', () => {
  it('refuses a label whose changed prompt fails its test: 409 TESTS_FAILED with the report, the base as it was', async () => {
    await put('/api/prompts/gate.greet', {
      prompt: 'Hello {{.args.name}}',
      tests: [containing('greets', 'Hello Ada', { args: { name: 'Ada' } })],
    })
    await put('/api/prompts/gate.greet?label=rude', {
      prompt: 'Go away {{.args.name}}',
      tests: [containing('greets', 'Hello Ada', { args: { name: 'Ada' } })],
    })
    const { status, body } = await promote('rude')
    expect(status).toBe(409)
    expect(body).toMatchObject({
      status: 'error',
      code: 'TESTS_FAILED',
      message: expect.stringMatching(/rude.*1 failed/),
    })
    const report = body.report as TestReport
    expect(report).toMatchObject({ passed: 0, failed: 1, skipped: 0, errors: 0 })
    expect(report.cases).toMatchObject([
      {
        prompt: 'gate.greet',
        name: 'greets',
        result: 'fail',
        failures: [{ assert: 'contains', expected: 'Hello Ada', actual: 'Go away Ada' }],
      },
    ])
    expect(await basePrompt('gate.greet')).toBe('Hello {{.args.name}}')
    expect(await db.redis.keys('shenma:labels:rude:*')).not.toEqual([])
    // A dry run says what would change and runs no test.
    const dry = await promote('rude', '?dry_run=true')
    expect(dry.status).toBe(200)
    expect(dry.body.data).toMatchObject([{ kind: 'prompts', id: 'gate.greet' }])
  })

  it('promotes a failing label with force=true, and the versions and the log line say so', async () => {
    await put('/api/prompts/gate.forced?label=pushy', { prompt: 'Bye', tests: [containing('says hi', 'Hi')] })
    const { result, lines } = await logged(() => promote('pushy', '?force=true&message=hotfix'))
    expect(result.status).toBe(200)
    expect(await basePrompt('gate.forced')).toBe('Bye')
    const versions = await get(env, '/api/prompts/gate.forced/versions')
    expect(versions.body.data).toMatchObject([{ version: 1, message: 'hotfix; tests skipped (force)' }])
    const line = lines.find((l) => l.promoted !== undefined)
    expect(line?.promoted).toMatchObject({ label: 'pushy', records: 1, forced: true, tests: null })
  })

  it('promotes a label whose tests pass, and logs their counts', async () => {
    await put('/api/prompts/gate.kind?label=kind', {
      prompt: 'Hello {{.args.name}}',
      tests: [
        containing('greets Bo', 'Hello Bo', { args: { name: 'Bo' } }),
        containing('greets Cy', 'Hello Cy', { args: { name: 'Cy' } }),
      ],
    })
    const { result, lines } = await logged(() => promote('kind'))
    expect(result.status, JSON.stringify(result.body)).toBe(200)
    expect(await basePrompt('gate.kind')).toBe('Hello {{.args.name}}')
    const versions = await get(env, '/api/prompts/gate.kind/versions')
    expect(versions.body.data).toMatchObject([{ version: 1, message: 'promoted from label kind' }])
    const line = lines.find((l) => l.promoted !== undefined)
    expect(line?.promoted).toMatchObject({ forced: false, tests: { passed: 2, failed: 0, skipped: 0, errors: 0 } })
  })

  it('runs the tests of the prompts that read a shared variable a label changes, and only theirs', async () => {
    await put('/api/environs/team.tone', 'calm')
    await put('/api/prompts/tone.reader', { prompt: 'Be {{.team.tone}}.', tests: [containing('is calm', 'Be calm.')] })
    await put('/api/prompts/tone.whole', { prompt: '{{toJson .team}}', tests: [containing('has a tone', 'calm')] })
    // Reads another variable, and fails: it is not run, so it does not block.
    await put('/api/environs/team.size', 3)
    await put('/api/prompts/tone.other', { prompt: 'Size {{.team.size}}', tests: [containing('never', 'nope')] })
    await put('/api/environs/team.tone?label=loud', 'loud')
    // POST /api/test's changed_by runs what the gate will, in the label, and promotes nothing.
    const asked = await send('POST', '/api/test', { changed_by: 'loud' })
    expect(asked.status, JSON.stringify(asked.body)).toBe(200)
    const run = asked.body.data as TestReport
    expect(run.cases.map((c) => [c.prompt, c.result]).sort()).toEqual([
      ['tone.reader', 'fail'],
      ['tone.whole', 'fail'],
    ])
    expect((await send('POST', '/api/test', { changed_by: 'loud', ids: ['tone.other'] })).status).toBe(400)
    expect((await send('POST', '/api/test?label=loud', { changed_by: 'loud' })).status).toBe(400)
    const { status, body } = await promote('loud')
    expect(status).toBe(409)
    const report = body.report as TestReport
    expect(report.cases.map((c) => [c.prompt, c.result]).sort()).toEqual([
      ['tone.reader', 'fail'],
      ['tone.whole', 'fail'],
    ])
    expect((await get(env, '/api/environs/team.tone')).body.data).toBe('calm')

    // A change they pass with is promoted, tone.other's failing test not run.
    await put('/api/environs/team.tone?label=calmer', 'calm')
    await put('/api/prompts/tone.reader?label=calmer', {
      prompt: 'Be {{.team.tone}}, always.',
      tests: [containing('is calm', 'Be calm, always.')],
    })
    const passed = await promote('calmer')
    expect(passed.status, JSON.stringify(passed.body)).toBe(200)
    expect(await basePrompt('tone.reader')).toBe('Be {{.team.tone}}, always.')
  })

  it('runs the tests of the prompts that call a tool a label changes', async () => {
    const tool = (description: string) => ({
      name: 'echo',
      module: 'gt',
      type: 'restful',
      description,
      parameters: [{ name: 'q', type: 'string' }],
      restful: { url: 'http://127.0.0.1:1/echo' },
    })
    await put('/api/tools/gt_echo', tool('echoes'))
    // Its test fixes the tool's answer, and fails: run only when the label touches the tool.
    await put('/api/prompts/gt.caller', {
      prompt: 'Got {{(gt_echo "x").q}}',
      tests: [containing('echoes', 'Got y', { tools: { gt_echo: { q: 'x' } } })],
    })
    await put('/api/prompts/gt.idle', { prompt: 'idle', tests: [containing('fails', 'busy')] })
    await put('/api/tools/gt_echo?label=retool', tool('echoes, described anew'))
    const { status, body } = await promote('retool')
    expect(status).toBe(409)
    const report = body.report as TestReport
    expect(report.cases).toMatchObject([
      { prompt: 'gt.caller', result: 'fail', failures: [{ assert: 'contains', expected: 'Got y', actual: 'Got x' }] },
    ])
    expect((await get(env, '/api/tools/gt_echo')).body.data).toMatchObject({ description: 'echoes' })
  })

  it("runs an extension's prompts when the label changes the extension", async () => {
    const extension = (text: string) => ({
      name: 'ext',
      version: '1.0.0',
      extensionType: 'prompt',
      contributes: { prompts: [{ name: 'hello', prompt: text, tests: [containing('says hello', 'hello')] }] },
    })
    await put('/api/extensions/gx', extension('hello'))
    await put('/api/extensions/gx?label=mute', extension('...'))
    const { status, body } = await promote('mute')
    expect(status).toBe(409)
    expect((body.report as TestReport).cases).toMatchObject([{ prompt: 'gx.hello', result: 'fail' }])
  })

  it('promote with an expected plan: a label written after the plan was read is 409 CONFLICT, nothing written', async () => {
    await put('/api/prompts/plan.p?label=plan', { prompt: 'planned' })
    const store = realStore()
    const planned = await promoteLabel(store, 'plan', { dryRun: true, historyLimit: 50 })
    await put('/api/prompts/plan.p?label=plan', { prompt: 'not planned' })
    const refused = await promoteLabel(store, 'plan', { historyLimit: 50, expected: planned }).catch((e: unknown) => e)
    expect(refused).toMatchObject({ code: 'CONFLICT' })
    expect(await basePrompt('plan.p')).toBeNull()
    // The plan read again is promoted as it is.
    const replanned = await promoteLabel(store, 'plan', { dryRun: true, historyLimit: 50 })
    // What was planned, each with the version it wrote.
    const promoted = replanned.map((p) => ({ ...p, version: 1 }))
    expect(await promoteLabel(store, 'plan', { historyLimit: 50, expected: replanned })).toEqual(promoted)
    expect(await basePrompt('plan.p')).toBe('not planned')
  })

  it('promotes nothing untested: a write into the label while its tests run is 409 CONFLICT, nothing written', async () => {
    const tools = toolServer()
    await put('/api/tools/race_hang', {
      name: 'hang',
      module: 'race',
      type: 'restful',
      description: 'answers only once the caller gives up',
      parameters: [],
      restful: { url: `${tools.url}/hang/tools/race?group=gate-race`, method: 'GET' },
    })
    await put('/api/prompts/race.p?label=race', {
      prompt: 'tested{{$late := race_hang}}',
      tests: [{ name: 'says tested', assert: [{ type: 'contains', value: 'tested' }] }],
    })
    // The case's render waits on the tool, as long as TOOL_TIMEOUT_MS lets it: the label is written meanwhile.
    const slow = { ...env, TOOL_TIMEOUT_MS: '2000', RENDER_TIMEOUT_MS: '3000' }
    const promoting = fetchWorker(slow, '/api/labels/race/promote', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    })
    expect((await tools.busy('gate-race')).calls).toBe(1)
    await put('/api/prompts/race.p?label=race', { prompt: 'written while tested' })
    const res = await promoting
    const refused = (await res.json()) as Record<string, unknown>
    expect(res.status, JSON.stringify(refused)).toBe(409)
    expect(refused).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/race.*after the label's tests ran/),
    })
    expect(await basePrompt('race.p')).toBeNull()
    expect((await call(env, 'GET', '/api/prompts/race.p?label=race')).status).toBe(200)
  })
})

describe("the promote gate's bounds", () => {
  let big: TestRedis
  let bigEnv: Env
  beforeAll(async () => ({ db: big, env: bigEnv } = await writableRedis()))
  afterAll(() => big.release())

  /** `count` direct prompts `many.p{from + i}` reading `.many.v`, each with a passing case when `tested`. */
  async function prompts(from: number, count: number, tested: boolean): Promise<void> {
    const records = Object.fromEntries(
      Array.from({ length: count }, (_, i) => [
        `shenma:templates:many:p${from + i}`,
        { prompt: 'v={{.many.v}}', ...(tested ? { tests: [containing('reads v', 'v=')] } : {}) },
      ]),
    )
    await big.redis.mset(records)
  }

  const promoteBig = async (label: string, query = '') => {
    const res = await fetchWorker(bigEnv, `/api/labels/${label}/promote${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }

  const putEnviron = async (label: string, value: string) => {
    const res = await fetchWorker(bigEnv, `/api/environs/many.v?label=${label}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(value),
    })
    expect(res.status).toBe(200)
  }

  it('refuses more affected prompts with tests than a run takes (MAX_RUN_PROMPTS), and more prompts than it looks through (MAX_AFFECTED_SCAN); force=true is the way past', async () => {
    await big.redis.set('shenma:environs:many:v', JSON.stringify('base'))
    await prompts(0, 101, true)
    await putEnviron('wide', 'wide')
    const wide = await promoteBig('wide')
    expect(wide.status).toBe(422)
    expect(wide.body).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      limit: 'MAX_RUN_PROMPTS',
      message: expect.stringMatching(/101 prompts.*force=true/),
    })
    expect(await big.redis.get('shenma:environs:many:v')).toBe('base')

    await prompts(101, 900, false)
    await putEnviron('wider', 'wider')
    const wider = await promoteBig('wider')
    expect(wider.status).toBe(422)
    expect(wider.body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'MAX_AFFECTED_SCAN' })
    expect(await big.redis.get('shenma:environs:many:v')).toBe('base')

    expect((await promoteBig('wider', '?force=true')).status).toBe(200)
    expect(await big.redis.get('shenma:environs:many:v')).toBe('wider')
  })
})
