// `validate --strict` as authors run it: prompt files checked against a live
// catalogue, the embedded examples that `wrangler dev` serves with no
// configuration, and the same examples published into Upstash (a real Redis
// behind the Upstash-protocol bridge), base and label.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../cli/index'
import { folder } from '../support/folder'
import { startRedis } from '../support/redis-server'
import type { RedisServer } from '../support/redis-server'
import { startBridge } from '../support/upstash-bridge'
import type { Bridge } from '../support/upstash-bridge'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

const run = promisify(execFile)

let dev: DevServer
let redis: RedisServer
let bridge: Bridge
/** The Upstash database the examples are published into. */
let token: string

const prompt = (text: string) =>
  JSON.stringify({ name: 'p', prompt: text, parameters: [{ name: 'code', type: 'string' }] })

/** Reads `.nope.x` on line 2, calls no_such_tool, and gives a tool one argument too many. */
const BAD = 'Review this:\n{{.nope.x}} {{no_such_tool .args.code}}\n{{codebase_lookup_ref .args.code 5 "extra"}}'
/** Reads only what the examples and its own files hold, and declared args. */
const GOOD =
  '{{.vscode.programming_language}} {{range .vscode.frameworks}}{{.}} {{end}}{{.codebase.current_project.name}}\n' +
  '{{.team.name}}: {{.args.code}} {{codebase_lookup_ref .args.code 5}} {{codebase_lookup_ref (dict "symbol" "x")}}'

let bad: string
let good: string

/** `npx ai-prompt-shell ...args` with no configuration from this environment. */
async function npx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = { API_TOKEN: '', AI_PROMPT_SHELL_URL: '', UPSTASH_REDIS_REST_URL: '', UPSTASH_REDIS_REST_TOKEN: '' }
  try {
    const { stdout, stderr } = await run('npx', ['ai-prompt-shell', ...args], { env: { ...process.env, ...clean } })
    return { code: 0, stdout, stderr: stderr.replace(/^npm warn .*\n/gm, '') }
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr.replace(/^npm warn .*\n/gm, '') }
  }
}

/** The CLI in this process, with `env` as its whole environment. */
async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), env })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

/** What BAD's file gets: the three problems, each at its line and column. */
function expectBadNamed(stderr: string): void {
  const file = join(bad, 'templates/t/p.json')
  expect(stderr).toContain(`error: ${file}: $.prompt:2:7: reads .nope.x, but there is no shared variable nope\n`)
  expect(stderr).toContain(
    `error: ${file}: $.prompt:2:14: calls no_such_tool, which is not a builtin, a helper or a tool\n`,
  )
  expect(stderr).toContain(
    `error: ${file}: $.prompt:3:2: passes 3 arguments to codebase_lookup_ref, which declares 2 (symbol, limit)\n`,
  )
  expect(stderr).toMatch(/^1 file: 3 errors, 0 warnings$/m)
}

beforeAll(async () => {
  bad = await folder({ 'templates/t/p.json': prompt(BAD) })
  good = await folder({ 'templates/t/p.json': prompt(GOOD), 'environs/team/name.txt': 'core\n' })
  ;[dev, redis] = await Promise.all([startDev(), startRedis()])
  bridge = await startBridge({ redisPort: redis.port })
  const res = await fetch(`${bridge.url}/__bridge/databases`, { method: 'POST' })
  token = ((await res.json()) as { token: string }).token
  const published = await cli(['publish', 'examples', '--url', bridge.url, '--token', token], {})
  expect(published.code, published.err).toBe(0)
}, 60_000)

afterAll(async () => {
  await dev?.stop()
  await bridge?.stop()
  await redis?.stop()
})

describe('validate --strict against a deployment', () => {
  it('names what a template reads and calls that the catalogue lacks, with line and column, and exits 1', async () => {
    const { code, stderr } = await npx(['validate', '--strict', '--url', dev.url, bad])
    expect(code).toBe(1)
    expectBadNamed(stderr)
  })

  it('passes a template that reads only existing variables, its files’ own, and declared args', async () => {
    const { code, stdout, stderr } = await npx(['validate', '--strict', '--url', dev.url, good])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toBe('2 files: 0 errors, 0 warnings\n')
  })

  it('passes the examples against the catalogue they make', async () => {
    const { code, stdout, stderr } = await npx(['validate', '--strict', 'examples', '--url', dev.url])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toBe('11 files: 0 errors, 0 warnings\n')
  })

  it('checks nothing against the catalogue in a file that failed validation', async () => {
    const broken = await folder({ 'templates/t/p.json': JSON.stringify({ name: 'p', prompt: BAD, supports: 'chat' }) })
    const { code, stderr } = await npx(['validate', '--strict', '--url', dev.url, broken])
    expect(code).toBe(1)
    expect(stderr).toMatch(/^error: .*: \$\.supports: /m)
    expect(stderr).not.toMatch(/nope/)
  })
})

describe('validate --strict against Upstash', () => {
  const upstash = () => ({ UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: token })

  it('names the same problems', async () => {
    const { code, err } = await cli(['validate', '--strict', bad], upstash())
    expect(code).toBe(1)
    expectBadNamed(`${err}\n`)
  })

  it('passes the same template', async () => {
    const { code, out, err } = await cli(['validate', '--strict', good], upstash())
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(out).toBe('2 files: 0 errors, 0 warnings')
  })

  it('reads every page of the tool list: a tool past the first thousand is known', async () => {
    const res = await fetch(`${bridge.url}/__bridge/databases`, { method: 'POST' })
    const own = ((await res.json()) as { token: string }).token
    const tool = JSON.stringify({
      name: 't',
      module: 'm',
      type: 'restful',
      restful: { url: '/t' },
      description: 'd',
      parameters: {},
    })
    const keys = [
      ...Array.from({ length: 1000 }, (_, i) => `shenma:tools:filler:t${String(i).padStart(4, '0')}`),
      'shenma:tools:zzz:last',
    ]
    const set = await fetch(bridge.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${own}`, 'content-type': 'application/json' },
      body: JSON.stringify(['MSET', ...keys.flatMap((key) => [key, tool])]),
    })
    expect(set.status).toBe(200)
    const files = await folder({ 'templates/t/p.json': prompt('{{zzz_last}} {{filler_t0000}}') })
    const env = { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: own }
    const { code, out, err } = await cli(['validate', '--strict', files], env)
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(out).toBe('1 file: 0 errors, 0 warnings')
    const missing = await folder({ 'templates/t/p.json': prompt('{{zzz_lost}}') })
    expect((await cli(['validate', '--strict', missing], env)).err).toMatch(/calls zzz_lost, which is not a builtin/)
  })

  it("reads a label's catalogue with --label", async () => {
    const env = await folder({ 'environs/nope.json': JSON.stringify({ x: 1 }) })
    const published = await cli(['publish', env, '--label', 'feat-nope', '--url', bridge.url, '--token', token], {})
    expect(published.code, published.err).toBe(0)
    const text = '{{.nope.x}} {{.vscode.programming_language}}'
    const files = await folder({ 'templates/t/p.json': prompt(text) })
    const base = await cli(['validate', '--strict', files], upstash())
    expect(base.code).toBe(1)
    expect(base.err).toMatch(/reads \.nope\.x, but there is no shared variable nope/)
    const label = await cli(['validate', '--strict', '--label', 'feat-nope', files], upstash())
    expect(label.err).toBe('')
    expect(label.code).toBe(0)
  })
})
