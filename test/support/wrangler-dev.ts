// `npm run dev` (wrangler dev) as a child process, for end-to-end tests on
// Node: started in its own process group (wrangler starts workerd children
// that must stop with it), ready once it says so.
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { freePort } from './ports'

/** The admin token `npm run dev:redis` sets (scripts/dev-redis.mjs). */
export const DEV_ADMIN_TOKEN = 'dev-admin-token'

export interface DevServer {
  /** http://127.0.0.1:PORT */
  url: string
  /** Resolves once wrangler's output so far matches `pattern` (the test's timeout bounds the wait). */
  outputMatching(pattern: RegExp): Promise<void>
  /** Everything wrangler and the Worker printed so far. */
  output(): string
  /**
   * A request with `npm run dev:redis`'s admin token (`dev-admin-token`), a
   * JSON body when given: its status, its text, and that text as JSON (null
   * when it is not).
   */
  asAdmin<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; body: T }>
  stop(): Promise<void>
}

/**
 * Starts `npm run dev` (or `script`, which forwards its arguments to it) with `vars` as Worker variables, and no
 * Redis configuration from this process's environment.
 */
export async function startDev(vars: Record<string, string> = {}, script = 'dev'): Promise<DevServer> {
  const port = await freePort()
  // Its own devtools port too: two dev servers starting at once would otherwise both take 9229's neighbour.
  const inspectorPort = await freePort()
  const env: Record<string, string | undefined> = {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  }
  delete env.UPSTASH_REDIS_REST_URL
  delete env.UPSTASH_REDIS_REST_TOKEN
  const varArgs = Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`])
  const dev: ChildProcess = spawn(
    'npm',
    [
      'run',
      script,
      '--',
      '--port',
      String(port),
      '--ip',
      '127.0.0.1',
      '--inspector-port',
      String(inspectorPort),
      ...varArgs,
    ],
    {
      env,
      detached: true,
    },
  )
  // Every process that writes to the output's pipes (npm, scripts/dev.mjs, wrangler) has exited once both close:
  // npm exits at once on SIGTERM, before what it started has stopped.
  const closed = new Promise<void>((resolve) => dev.once('close', () => resolve()))
  let output = ''
  const waiters: { pattern: RegExp; resolve: () => void }[] = []
  const onData = (chunk: Buffer) => {
    output += chunk.toString()
    for (const waiter of waiters.filter((w) => w.pattern.test(output))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }
  dev.stdout?.on('data', onData)
  dev.stderr?.on('data', onData)
  const outputMatching = (pattern: RegExp) =>
    pattern.test(output) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ pattern, resolve }))
  await new Promise<void>((resolve, reject) => {
    outputMatching(/Ready on/).then(resolve)
    dev.once('exit', (code) => reject(new Error(`npm run ${script} exited with ${code}:\n${output}`)))
  })
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    outputMatching,
    output: () => output,
    async asAdmin<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${DEV_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await res.text()
      let parsed: unknown = null
      try {
        parsed = JSON.parse(text)
      } catch {
        // Not JSON: `text` says what it was.
      }
      return { status: res.status, text, body: parsed as T }
    },
    /** Resolves once npm, the example tools and wrangler have all exited. */
    async stop() {
      if (dev.pid === undefined) return
      if (dev.exitCode === null && dev.signalCode === null) process.kill(-dev.pid, 'SIGTERM')
      await closed
    },
  }
}
