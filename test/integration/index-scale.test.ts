// Issue 29's acceptance: with 100,000 filler keys in the database (half
// another application's, half chat histories under shenma:environs:), the
// request paths read the record index, never the keyspace. Each request runs
// cold (a fresh database is a fresh cache namespace) against a catalogue at
// 0 and at 100,000 filler keys, and costs the same Redis requests at both,
// with no SCAN: asserted on the bridge's command counts.
import { describe, expect, it } from 'vitest'
import evaluator from '../../examples/extensions/evaluator.json'
import type { Env } from '../../lib/env'
import { chatEnv, call, fetchWorker, freshRedis, llmServer, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { reconciled } from '../support/reconciled'
import { restTool } from '../support/records'

const FILLER = 100_000
const tools = toolServer()
const llm = llmServer()

const RECORDS: Record<string, unknown> = {
  'shenma:templates:scale:p': {
    prompt: 'Hi {{.args.name}} in {{.vscode.lang}}: {{(scale_echo "x").query.x}}',
    parameters: { name: { type: 'string' } },
  },
  'shenma:environs:vscode:lang': 'go',
  'shenma:tools:scale:echo': restTool('scale', 'echo', `${tools.url}/tools/echo?group=index-scale`),
  'shenma:extensions:evaluator': evaluator,
  'shenma:environs:vscode:rules': ['readability'],
  'shenma:environs:codebase:current_project': { name: 'shop-api' },
}

/** A database holding the catalogue and `filler` keys, its index reconciled. */
async function catalogue(filler: number): Promise<TestRedis> {
  const db = await freshRedis()
  await db.redis.mset(RECORDS)
  if (filler > 0) await db.fill(filler)
  await reconciled(db)
  return db
}

const mcp = (env: Env, method: string, params: Record<string, unknown>) =>
  fetchWorker(env, '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }))

/** Each request path, as a first request of a cold Worker on `env`; each must succeed. */
const paths: [string, (env: Env) => Promise<{ status: number; body: Record<string, unknown> }>][] = [
  ['render', (env) => call(env, 'POST', '/api/prompts/scale.p/render', { args: { name: 'a' } })],
  ['chat', (env) => call(env, 'POST', '/api/prompts/scale.p/chat', { model: 'ok', args: { name: 'a' } })],
  [
    'draft render',
    (env) => call(env, 'POST', '/api/render', { prompt: '{{.vscode.lang}} {{(scale_echo "y").query.x}}' }),
  ],
  ['MCP prompts/get', (env) => mcp(env, 'prompts/get', { name: 'evaluator.evaluate_quality' })],
  ['MCP tools/call', (env) => mcp(env, 'tools/call', { name: 'scale_echo', arguments: { x: 'z' } })],
  ['MCP resources/read', (env) => mcp(env, 'resources/read', { uri: 'environ://vscode/lang' })],
  ['GET a prompt', (env) => call(env, 'GET', '/api/prompts/scale.p')],
  ['GET a tool', (env) => call(env, 'GET', '/api/tools/scale_echo')],
  ['GET an extension', (env) => call(env, 'GET', '/api/extensions/evaluator')],
  ['GET an environ', (env) => call(env, 'GET', '/api/environs/vscode')],
]

describe(`at ${FILLER} filler keys, as at none`, { timeout: 60_000 }, () => {
  for (const [name, run] of paths) {
    it(`${name} makes no SCAN, and the same Redis requests`, async () => {
      const [empty, full] = await Promise.all([catalogue(0), catalogue(FILLER)])
      const cost = async (db: TestRedis) => {
        await db.resetRequests()
        const answer = await run(chatEnv(db))
        expect(answer.status, JSON.stringify(answer.body)).toBe(200)
        expect(JSON.stringify(answer.body)).not.toContain('"error"')
        return { requests: await db.requests(), counts: await db.counts() }
      }
      await llm.reset('ok')
      const none = await cost(empty)
      const many = await cost(full)
      console.log(`${name}: ${none.requests} Redis requests at 0 keys, ${many.requests} at ${FILLER}`, many.counts)
      expect(many.counts.SCAN ?? 0).toBe(0)
      expect(none.counts.SCAN ?? 0).toBe(0)
      expect(many.requests).toBe(none.requests)
      await Promise.all([empty.release(), full.release()])
    })
  }
})
