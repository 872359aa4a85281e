// The README's first command, as a newcomer runs it: `npm run dev` on a
// machine with no Redis and no configuration serves the example catalogue.
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../support/ports'

let dev: ChildProcess
let base: string
let output = ''
const waiters: { pattern: RegExp; resolve: () => void }[] = []

/** Resolves once wrangler's output matches `pattern` (the test's timeout bounds the wait). */
function outputMatching(pattern: RegExp): Promise<void> {
  if (pattern.test(output)) return Promise.resolve()
  return new Promise((resolve) => waiters.push({ pattern, resolve }))
}

beforeAll(async () => {
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  const env: Record<string, string | undefined> = {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  }
  delete env.UPSTASH_REDIS_REST_URL
  delete env.UPSTASH_REDIS_REST_TOKEN
  // Its own process group: wrangler starts workerd children that must stop with it.
  dev = spawn('npm', ['run', 'dev', '--', '--port', String(port), '--ip', '127.0.0.1'], { env, detached: true })
  const onData = (chunk: Buffer) => {
    output += chunk.toString()
    for (const waiter of waiters.filter((w) => w.pattern.test(output))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }
  dev.stdout?.on('data', onData)
  dev.stderr?.on('data', onData)
  await new Promise<void>((resolve, reject) => {
    outputMatching(/Ready on/).then(resolve)
    dev.once('exit', (code) => reject(new Error(`wrangler dev exited with ${code}:\n${output}`)))
  })
}, 60_000)

afterAll(async () => {
  if (dev.exitCode !== null || dev.pid === undefined) return
  const exited = new Promise((resolve) => dev.once('exit', resolve))
  process.kill(-dev.pid, 'SIGTERM')
  await exited
})

describe('npm run dev', () => {
  it('serves the example extension from the embedded store', async () => {
    const res = await fetch(`${base}/api/extensions`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { data: { id: string }[] }
    expect(body.data.map((e) => e.id)).toEqual(['evaluator'])
  })

  it('says in its log that the store is the embedded one', async () => {
    await fetch(`${base}/health`)
    await outputMatching(/"msg":"using the embedded store/)
    expect(output.match(/using the embedded store/g)).toHaveLength(1)
  })
})
