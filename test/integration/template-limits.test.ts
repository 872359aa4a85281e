// Hostile templates through the Worker (rows 3, 4, 5 and 10 of issue 12's
// table): what a publisher writes costs only its own render. Each answer is a
// 4xx with a stable code, or a 200, never a crash, and the next ordinary render
// in the same isolate answers 200. The engine's own limits are unit-tested in
// test/unit/template/; here they meet the service's codes.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { call, freshRedis, toolServer } from '../support/harness'
import type { Answer, TestRedis } from '../support/harness'
import { restTool } from '../support/records'

let db: TestRedis

/** `{{define "t0"}}` … `{{define "tN"}}`, each calling the next twice, with .a and .b. */
function doublingDefines(levels: number): string {
  const define = (i: number) =>
    i === levels - 1
      ? `{{define "t${i}"}}{{.x}}{{end}}`
      : `{{define "t${i}"}}{{template "t${i + 1}" .a}}{{template "t${i + 1}" .b}}{{end}}`
  return Array.from({ length: levels }, (_, i) => define(i)).join('')
}

/** "xx" doubled `times` times with print, then given to `fn`. */
const doubled = (start: string, times: number, fn: string) =>
  `{{$s := "${start}"}}${'{{$s = print $s $s}}'.repeat(times)}{{${fn} $s}}`

const PROMPTS: Record<string, string> = {
  hello: 'Hello {{.args.name}}',
  analysis: `${doublingDefines(22)}{{if false}}{{template "t0" .}}{{end}}done`,
  number: `{{${'1'.repeat(1_000_000)}}}`,
  // The row: print itself passes the output limit long before the 27th doubling.
  doubled_27: doubled('xx', 27, 'html'),
  // 2 Mi characters, under the limit, that html, js and urlquery would make 8, 12 and 6 Mi.
  expand_html: doubled('<<', 20, 'html'),
  expand_js: doubled('<<', 20, 'js'),
  expand_urlquery: doubled('<<', 20, 'urlquery'),
  output: `{{range 100}}${'x'.repeat(64 * 1024)}{{end}}`,
  deep_if: `${'{{if true}}'.repeat(10_000)}x${'{{end}}'.repeat(10_000)}`,
  deep_parens: `{{${'('.repeat(10_000)}1${')'.repeat(10_000)}}}`,
  deep_dict: `{{$x := dict "a" 1}}${'{{$x = dict "a" $x}}'.repeat(5_000)}{{$x}}`,
  stored_deep: '{{.deep}}',
  long_path: `{{if false}}{{.${Array.from({ length: 5_000 }, () => 'a').join('.')}}}{{end}}long`,
  // One tool called identically a million times: the session answers every call with its first call's Promise.
  async_bomb: '{{range 1000000}}{{(bomb_same "x").method}}{{end}}',
}

beforeAll(async () => {
  db = await freshRedis()
  const records: Record<string, unknown> = {}
  for (const [name, prompt] of Object.entries(PROMPTS)) records[`shenma:templates:team:${name}`] = { prompt }
  // As deep as a stored value may be (MAX_JSON_DEPTH): printing it must work.
  records['shenma:environs:deep'] = JSON.parse(`${'['.repeat(100)}1${']'.repeat(100)}`)
  records['shenma:tools:bomb:same'] = restTool('bomb', 'same', `${toolServer().url}/tools/same?group=async-bomb`)
  await db.redis.mset(records)
})
afterAll(() => db.release())
afterEach(() => {
  vi.useRealTimers()
})

const render = (name: string, args: Record<string, unknown> = {}) =>
  call(db.env, 'POST', `/api/prompts/team.${name}/render`, { args })

/** The ordinary render that must still answer 200 after a hostile one. */
async function expectOrdinaryRender(): Promise<void> {
  const { status, body } = await render('hello', { name: 'Ada' })
  expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: 'Hello Ada' })
}

/** A 422 LIMIT_EXCEEDED answer naming `limit`. */
function expectLimitExceeded(answer: Answer, limit: string): Answer {
  expect({ status: answer.status, code: answer.body.code, limit: answer.body.limit }).toEqual({
    status: 422,
    code: 'LIMIT_EXCEEDED',
    limit,
  })
  return answer
}

describe('hostile templates', () => {
  it('row 3: 22 defines each calling the next twice, inside {{if false}}, render (the analysis stays linear)', async () => {
    const { status, body } = await render('analysis')
    expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: 'done' })
    await expectOrdinaryRender()
  })

  it('row 4: a number literal of 1,000,000 digits is 400 TEMPLATE_SYNTAX, quoting only a little of it', async () => {
    const { status, body } = await render('number')
    expect({ status, code: body.code }).toEqual({ status: 400, code: 'TEMPLATE_SYNTAX' })
    expect(String(body.message).length).toBeLessThan(300)
    await expectOrdinaryRender()
  })

  for (const name of ['doubled_27', 'expand_html', 'expand_js', 'expand_urlquery']) {
    it(`row 5: ${name} is 422 LIMIT_EXCEEDED before the string is built`, async () => {
      const { body } = expectLimitExceeded(await render(name), 'maxOutput')
      expect(body).toMatchObject({ template: `team.${name}`, line: 1 })
      await expectOrdinaryRender()
    })
  }

  it('output past its limit is 422 LIMIT_EXCEEDED, not a 500', async () => {
    expectLimitExceeded(await render('output'), 'maxOutput')
    await expectOrdinaryRender()
  })

  for (const name of ['deep_if', 'deep_parens']) {
    it(`row 10: a template nested 10,000 deep (${name}) is 400 TEMPLATE_SYNTAX`, async () => {
      const { status, body } = await render(name)
      expect({ status, code: body.code }).toEqual({ status: 400, code: 'TEMPLATE_SYNTAX' })
      expect(body.message).toMatch(/nest/)
      await expectOrdinaryRender()
    })
  }

  it('a value the template nests 5,000 deep is 422 LIMIT_EXCEEDED when printed', async () => {
    expectLimitExceeded(await render('deep_dict'), 'maxDataDepth')
    await expectOrdinaryRender()
  })

  it('a stored value as deep as a record may be prints', async () => {
    const { status, body } = await render('stored_deep')
    expect({ status, rendered: body.rendered_prompt }).toEqual({
      status: 200,
      rendered: `${'['.repeat(100)}1${']'.repeat(100)}`,
    })
  })

  it('one tool called identically a million times is one request, and 503 RENDER_TIMEOUT by the step budget', async () => {
    const tools = toolServer()
    await tools.reset('async-bomb')
    // As deployed, where the clock stands still during CPU work: only the step budget (2.5 M steps) ends the loop.
    vi.useFakeTimers({ toFake: ['Date'] })
    // Before: 2 steps a call, so the million fit in the budget, each holding its own pending pieces (about 1 GB).
    const { status, body } = await render('async_bomb')
    expect({ status, code: body.code }).toEqual({ status: 503, code: 'RENDER_TIMEOUT' })
    expect((await tools.idle('async-bomb')).calls).toBe(1)
    await expectOrdinaryRender()
  })

  it('a path of 5,000 segments reads no key deeper than an environ key can be', async () => {
    await db.resetRequests()
    const { status, body } = await render('long_path')
    expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: 'long' })
    // Its 32 keys (a, a:a, …) and the key list; each of the 5,000 prefixes as a key would be about 25 MB.
    expect(await db.bytes()).toBeLessThan(16 * 1024)
    await expectOrdinaryRender()
  })
})
