/**
 * The Worker under Miniflare: the bundle `wrangler deploy --dry-run` writes,
 * run by workerd directly, with no `wrangler dev` proxy in front of it (so
 * what a request costs the Worker weighs more in its figures). And a CPU
 * profiler for it, over workerd's V8 inspector (Chrome DevTools Protocol).
 *
 * The bundle is built unminified, so that the profile names our functions.
 * The Worker's log lines (one per request) are read from workerd's stdout and
 * scanned for warnings and errors, as bench/worker.ts does with wrangler's.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import { basename, dirname, extname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { Miniflare } from 'miniflare'
import type { MiniflareOptions } from 'miniflare'
import { freePort } from '../test/support/ports'
import { childrenRss, log } from './worker'
import type { Logged } from './worker'

export interface MiniflareWorker {
  base: string
  version: string
  /** The bundle's text, for naming the functions of a profile (bench/profile.ts). */
  bundle: string
  /** From now on, lines of output are logged as coming in this phase. */
  phase(name: string): void
  /** Lines of the Worker's output that report a problem. */
  problemLines(): Logged[]
  /** The resident memory of its workerd process, in bytes (VmRSS). */
  workerdRss(): number
  /** Records a CPU profile of the Worker while `load` runs; only when started with the inspector. */
  profile(load: () => Promise<void>): Promise<CpuProfile>
  /**
   * Runs the Worker's `scheduled` handler once, as a Cron Trigger would: `ok` when it returned, `failed` when it threw,
   * `none` when the Worker exports no such handler.
   */
  scheduled(cron: string): Promise<'ok' | 'failed' | 'none'>
  stop(): Promise<void>
}

/** The Worker bundled once, for several Miniflares in turn (each a fresh workerd: a cold isolate, a cold location). */
export interface Bundle {
  path: string
  /** Deletes the bundle. */
  remove(): void
}

/** What V8's Profiler.stop answers (the .cpuprofile format Chrome DevTools opens). */
export interface CpuProfile {
  nodes: {
    id: number
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }
    hitCount?: number
    children?: number[]
  }[]
  startTime: number
  endTime: number
  samples?: number[]
  timeDeltas?: number[]
}

/** What workerd says when a Worker without a scheduled handler is sent a scheduled event; and how soon, in ms. */
const NO_SCHEDULED = /lack a handler for ScheduledEvents/
const SAY_WITHIN_MS = 2000
/** Lines of problems kept (the first ones): a soak with Redis gone logs one per answer. */
const MAX_PROBLEM_LINES = 10_000

/** Microseconds between two samples of the profiler: finer than V8's default 1 ms, for requests of a fraction of one. */
const SAMPLING_INTERVAL_US = 100

/** Bundles the Worker (or `script`, another entry) as `wrangler deploy` would, unminified. */
export function bundleWorker(root: string, script?: string): Bundle {
  const outdir = mkdtempSync(join(os.tmpdir(), 'bench-miniflare-'))
  const remove = (): void => rmSync(outdir, { recursive: true, force: true })
  log(`bundling ${script ?? 'the Worker'} with wrangler deploy --dry-run ...`)
  const built = spawnSync('npx', ['wrangler', 'deploy', ...(script ? [script] : []), '--dry-run', '--outdir', outdir], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
  })
  if (built.status !== 0) {
    remove()
    throw new Error(`wrangler deploy --dry-run failed:\n${built.stdout}\n${built.stderr}`)
  }
  // wrangler names the bundle after its entry: index.js for wrangler.toml's.
  return { path: join(outdir, script ? `${basename(script, extname(script))}.js` : 'index.js'), remove }
}

/** The KV namespaces wrangler.toml binds, as Miniflare takes them (local and in memory, as under `wrangler dev`). */
async function kvNamespacesOf(root: string): Promise<Record<string, unknown>> {
  // Loaded only here: wrangler is a large module, which the scripts that never start Miniflare need not load.
  const { unstable_getMiniflareWorkerOptions } = await import('wrangler')
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(root, 'wrangler.toml'))
  return (workerOptions.kvNamespaces ?? {}) as Record<string, unknown>
}

/**
 * Runs the Worker in Miniflare with `vars` and wrangler.toml's KV namespaces as its bindings: `bundle` when given
 * (left in place on stop), else a bundle of its own of the Worker (or `script`), made now and deleted on stop;
 * `inspector` opens workerd's inspector, for profiles.
 */
export async function startMiniflare(
  root: string,
  vars: Readonly<Record<string, string>>,
  { inspector = false, script, bundle }: { inspector?: boolean; script?: string; bundle?: Bundle } = {},
): Promise<MiniflareWorker> {
  const own = bundle ? undefined : bundleWorker(root, script)
  const bundlePath = (bundle ?? (own as Bundle)).path
  const outdir = dirname(bundlePath)
  const [port, inspectorPort] = [await freePort(), await freePort()]
  const problems: Logged[] = []
  let phase = { name: 'start-up', started: performance.now() }
  let saidNoScheduled = (): void => {}
  const scan = (stream: Readable): void => {
    let rest = ''
    stream.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n')
      rest = lines.pop() ?? ''
      for (const line of lines) {
        if (NO_SCHEDULED.test(line)) saidNoScheduled()
        else if (isProblem(line) && problems.length < MAX_PROBLEM_LINES)
          problems.push({ line, phase: phase.name, at: (performance.now() - phase.started) / 1000 })
      }
    })
  }
  const mf = new Miniflare({
    modules: true,
    scriptPath: bundlePath,
    // Module names are paths below this; the default, the working directory, would put the bundle above it.
    modulesRoot: outdir,
    compatibilityDate: '2026-04-26',
    compatibilityFlags: ['nodejs_compat'],
    bindings: { ...vars },
    kvNamespaces: (await kvNamespacesOf(root)) as MiniflareOptions['kvNamespaces'],
    host: '127.0.0.1',
    port,
    // Only when asked: with the inspector on, workerd hands every console.log to it, which costs the floor a third.
    ...(inspector ? { inspectorPort } : {}),
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      scan(stdout)
      scan(stderr)
    },
  })
  const stop = async (): Promise<void> => {
    await mf.dispose()
    own?.remove()
  }
  let url: URL
  try {
    url = await mf.ready
  } catch (e) {
    await stop()
    throw e
  }
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules', 'miniflare', 'package.json'), 'utf8')) as {
    version: string
  }
  return {
    base: url.origin,
    version,
    bundle: readFileSync(bundlePath, 'utf8'),
    phase: (name) => (phase = { name, started: performance.now() }),
    problemLines: () => [...problems],
    workerdRss: () => childrenRss('workerd'),
    profile: async (load) => {
      if (!inspector) throw new Error('this Miniflare was started without the inspector')
      return profileWhile(inspectorPort, load)
    },
    scheduled: async (cron) => {
      // workerd says it has no handler on its output, which may reach us after the outcome does.
      const said = new Promise<'none'>((resolve) => (saidNoScheduled = () => resolve('none')))
      const { outcome } = await (await mf.getWorker()).scheduled({ cron })
      if (outcome === 'ok') return 'ok'
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<'failed'>((resolve) => (timer = setTimeout(() => resolve('failed'), SAY_WITHIN_MS)))
      try {
        return await Promise.race([said, late])
      } finally {
        clearTimeout(timer)
      }
    },
    stop,
  }
}

/** A CPU profile of the Worker's isolate while `load` runs. */
async function profileWhile(inspectorPort: number, load: () => Promise<void>): Promise<CpuProfile> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as {
    title: string
    webSocketDebuggerUrl: string
  }[]
  // Miniflare runs helper Workers beside ours (the cache, its entry); ours is the user Worker without a name.
  const target = targets.find((t) => t.title.endsWith('core:user:'))
  if (!target) throw new Error('workerd lists no inspector target')
  const session = await Inspector.open(target.webSocketDebuggerUrl)
  try {
    await session.send('Profiler.enable')
    await session.send('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US })
    await session.send('Profiler.start')
    await load()
    const { profile } = (await session.send('Profiler.stop')) as { profile: CpuProfile }
    return profile
  } finally {
    session.close()
  }
}

/** A Chrome DevTools Protocol session: numbered commands over a WebSocket, each answered by its id. */
class Inspector {
  #next = 1
  readonly #waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()

  private constructor(readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } }
      const waiter = message.id === undefined ? undefined : this.#waiting.get(message.id)
      if (!waiter || message.id === undefined) return
      this.#waiting.delete(message.id)
      if (message.error) waiter.reject(new Error(`inspector: ${message.error.message}`))
      else waiter.resolve(message.result)
    })
  }

  static open(url: string): Promise<Inspector> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url)
      socket.addEventListener('open', () => resolve(new Inspector(socket)), { once: true })
      socket.addEventListener('error', () => reject(new Error(`could not open the inspector at ${url}`)), {
        once: true,
      })
    })
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.#next++
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject })
      this.socket.send(JSON.stringify({ id, method, params }))
    })
  }

  close(): void {
    this.socket.close()
  }
}

/** The Worker's JSON log lines say a problem by their level; workerd's own lines, by their words. */
function isProblem(line: string): boolean {
  const json = line.indexOf('{"level":')
  if (json !== -1) return /^\{"level":"(warn|error)"/.test(line.slice(json))
  return /error|warn|exception|uncaught/i.test(line)
}
