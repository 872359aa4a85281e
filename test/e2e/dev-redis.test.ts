// `npm run dev:redis`, as the README says to run it: a real redis-server
// behind the Upstash-protocol bridge, seeded with the examples; a prompt PUT,
// rendered, written into a label, the label rendered, promoted and rolled back
// through the CLI, reached as the command prints; and nothing left running once
// it stops. Without redis-server, one line and exit 1.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

const ROOT = join(import.meta.dirname, '../..')
const run = promisify(execFile)

let dev: DevServer
/** The CLI's options to reach the service's write API, and Redis directly, as the command printed them. */
let viaApi: string[]
let viaRedis: string[]
let redisPort: number
let bridgeUrl: string
let redisToken: string

/** `npx ai-prompt-shell ...args`, with no configuration from this environment; its stdout (a failure throws). */
async function cli(args: string[]): Promise<string> {
  const env = {
    ...process.env,
    ADMIN_TOKEN: '',
    API_TOKEN: '',
    UPSTASH_REDIS_REST_URL: '',
    UPSTASH_REDIS_REST_TOKEN: '',
  }
  return (await run('npx', ['ai-prompt-shell', ...args], { cwd: ROOT, env })).stdout
}

/** One command sent to Redis as the bridge takes it (no base64): its result. */
async function redis(...command: string[]): Promise<unknown> {
  const res = await fetch(bridgeUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${redisToken}` },
    body: JSON.stringify(command),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { result: unknown }).result
}

/** A write through the service's API, with the dev ADMIN_TOKEN; its `data`. */
async function put(path: string, record: unknown): Promise<unknown> {
  const res = await fetch(`${dev.url}${path}`, {
    method: 'PUT',
    headers: { authorization: 'Bearer dev-admin-token', 'content-type': 'application/json' },
    body: JSON.stringify(record),
  })
  const answer = (await res.json()) as { data: unknown }
  expect(res.status, JSON.stringify(answer)).toBe(200)
  return answer.data
}

/** A render of team.greeting for Ada: the text and the headers that say what served it. */
async function greeting(label?: string): Promise<{ text: string; version: string | null; label: string | null }> {
  const query = label === undefined ? '' : `?label=${label}`
  const res = await fetch(`${dev.url}/api/prompts/team.greeting/render${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ args: { name: 'Ada' } }),
  })
  const answer = (await res.json()) as { rendered_prompt: string }
  expect(res.status, JSON.stringify(answer)).toBe(200)
  return {
    text: answer.rendered_prompt,
    version: res.headers.get('x-prompt-version'),
    label: res.headers.get('x-prompt-label'),
  }
}

beforeAll(async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  expect(readme).toMatch(/^npm run dev:redis\b/m)
  dev = await startDev({}, 'dev:redis')
  const output = dev.output()
  redisPort = Number(/redis-server on 127\.0\.0\.1:(\d+)/.exec(output)?.[1])
  const api = /through the service \((--api \S+ --admin-token \S+)\)/.exec(output)?.[1]
  const direct = /Redis directly \(--url (\S+) --token (\S+)\)/.exec(output)
  expect(api, output).toBe(`--api ${dev.url} --admin-token dev-admin-token`)
  expect(direct, output).not.toBeNull()
  viaApi = (api as string).split(' ')
  ;[, bridgeUrl, redisToken] = direct as unknown as [string, string, string]
  viaRedis = ['--url', bridgeUrl, '--token', redisToken]
}, 90_000)
afterAll(() => dev?.stop())

describe('npm run dev:redis', () => {
  it('seeds the examples through the write path: version 1 of each, listed in a record index that is ready', async () => {
    const res = await fetch(`${dev.url}/api/prompts/evaluator.quick_review`)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-prompt-version')).toBe('1')
    const records = ((await redis('KEYS', 'shenma:*')) as string[]).filter(
      (key) => !key.startsWith('shenma:history:') && !key.startsWith('shenma:index:'),
    )
    expect(records).toContain('shenma:templates:evaluator:quick_review')
    expect(await redis('ZCARD', 'shenma:index:keys')).toBe(records.length)
    expect(await redis('HEXISTS', 'shenma:index:state', 'ready')).toBe(1)
  })

  it('takes a prompt PUT, renders it, writes it into a label, renders the label, promotes and rolls back through the CLI', async () => {
    expect(await put('/api/prompts/team.greeting?message=first', { prompt: 'Hello {{.args.name}}' })).toEqual({
      id: 'team.greeting',
      key: 'shenma:templates:team:greeting',
      version: 1,
      label: null,
    })
    expect(await greeting()).toEqual({ text: 'Hello Ada', version: '1', label: null })

    const warmer = { prompt: 'Hello {{.args.name}}, welcome back' }
    expect(await put('/api/prompts/team.greeting?label=feat-warm', warmer)).toMatchObject({
      key: 'shenma:labels:feat-warm:templates:team:greeting',
      label: 'feat-warm',
    })
    expect(await greeting('feat-warm')).toEqual({ text: 'Hello Ada, welcome back', version: '1', label: 'feat-warm' })
    expect((await greeting()).text).toBe('Hello Ada')

    expect(await cli(['promote', '--from', 'feat-warm', ...viaApi])).toContain('~ prompts team.greeting')
    expect(await greeting()).toEqual({ text: 'Hello Ada, welcome back', version: '2', label: null })
    expect(await cli(['rollback', 'prompts', 'team.greeting', '--to', '1', ...viaApi])).toContain('version 3')
    expect(await greeting()).toEqual({ text: 'Hello Ada', version: '3', label: null })

    // All of it in that redis-server, which the CLI reaches directly too.
    expect(await redis('GET', 'shenma:templates:team:greeting')).toBe(
      JSON.stringify({ prompt: 'Hello {{.args.name}}' }),
    )
    expect(await redis('EXISTS', 'shenma:labels:feat-warm:templates:team:greeting')).toBe(0)
    const versions = await cli(['versions', 'prompts', 'team.greeting', ...viaRedis])
    expect(versions).toMatch(/^3 .*rollback to version 1/m)
    expect(versions).toMatch(/^2 .*promoted from label feat-warm/m)
    expect(versions).toMatch(/^1 .*first/m)
  }, 60_000)

  it('stops redis-server and the bridge when it is stopped', async () => {
    await dev.stop()
    await dev.outputMatching(/stopped redis-server and the bridge/)
    await expect(fetch(bridgeUrl, { method: 'POST' })).rejects.toThrow()
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(redisPort, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve('connected')
      })
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    })
    expect(refused).toBe('ECONNREFUSED')
  })
})

describe('npm run dev:redis without redis-server', () => {
  it('says how to install it in one line and exits 1', async () => {
    // A PATH holding node alone.
    const bin = await mkdtemp(join(tmpdir(), 'aps-no-redis-'))
    await symlink(process.execPath, join(bin, 'node'))
    try {
      const failed = await run('node', ['scripts/dev-redis.mjs'], {
        cwd: ROOT,
        env: { ...process.env, PATH: bin },
      }).then(
        () => undefined,
        (e: { code: number; stdout: string; stderr: string }) => e,
      )
      expect(failed?.code).toBe(1)
      expect(failed?.stdout).toBe('')
      expect(failed?.stderr).toMatch(/^npm run dev:redis: redis-server was not found on PATH: install it \(.*\)\n$/)
    } finally {
      await rm(bin, { recursive: true })
    }
  })
})
