/**
 * The bench's roles, each on an event loop of its own, as they would be on
 * machines of their own. The main thread sends a row's input and reads its
 * answer, megabytes of it at times: JSON-parsing that holds its loop for
 * tens of ms. Were the servers the Worker calls (the Upstash bridge, the
 * tool, drip and LLM servers) on that loop, the Worker would wait for the
 * bench; were the ordinary render sent meanwhile timed there, its answer
 * would be seen late. So the servers run on one worker thread, and the
 * ordinary renders are sent and timed on another.
 *
 * The bench is one bundled file (bench/run.mjs): a thread is that same file
 * started again with `workerData` naming its role, and `inThread` in the
 * file's top level dispatches it.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import { startDripServer } from '../test/support/drip-server'
import { startLlmServer } from '../test/support/llm-server'
import { startRedis } from '../test/support/redis-server'
import { startToolServer } from '../test/support/tool-server'
import { startBridge } from '../test/support/upstash-bridge'

/** The servers' addresses, as the servers thread tells them. */
export interface ServerUrls {
  bridge: string
  tools: string
  drip: string
  llm: { url: string; origin: string }
}

/** A request's status and time to the last byte of its answer; status 0 when it failed. */
export interface Sent {
  status: number
  ms: number
}

type Role = 'servers' | 'probe'

/** Runs this thread's role and answers true, or answers false on the main thread. */
export function inThread(): boolean {
  if (isMainThread) return false
  const role = (workerData as { role: Role }).role
  void (role === 'servers' ? serve() : probe())
  return true
}

/** The servers on a thread of their own; `stop` stops them and the thread. */
export async function startServers(file: string): Promise<ServerUrls & { stop(): Promise<void> }> {
  const worker = new Worker(file, { workerData: { role: 'servers' } })
  const urls = await reply<ServerUrls>(worker)
  return {
    ...urls,
    stop: async () => {
      worker.postMessage('stop')
      await reply(worker)
      await worker.terminate()
    },
  }
}

/** A thread that sends a POST when asked and times it on its own loop. */
export function startProbe(file: string): { post(url: string, body: unknown): Promise<Sent>; stop(): Promise<void> } {
  const worker = new Worker(file, { workerData: { role: 'probe' } })
  const waiting = new Map<number, (sent: Sent) => void>()
  let next = 0
  worker.on('message', ({ id, sent }: { id: number; sent: Sent }) => {
    waiting.get(id)?.(sent)
    waiting.delete(id)
  })
  return {
    post: (url, body) =>
      new Promise((resolve) => {
        waiting.set(++next, resolve)
        worker.postMessage({ id: next, url, body })
      }),
    stop: async () => void (await worker.terminate()),
  }
}

/** The next message of `worker`, or its error. */
function reply<T>(worker: Worker): Promise<T> {
  return new Promise((resolve, reject) => {
    const onError = (e: unknown) => reject(e instanceof Error ? e : new Error(String(e)))
    worker.once('error', onError)
    worker.once('message', (message: T) => {
      worker.off('error', onError)
      resolve(message)
    })
  })
}

async function serve(): Promise<void> {
  const port = parentPort as NonNullable<typeof parentPort>
  const redis = await startRedis()
  const bridge = await startBridge({ redisPort: redis.port })
  const tools = await startToolServer()
  const drip = await startDripServer()
  const llm = await startLlmServer()
  port.postMessage({ bridge: bridge.url, tools: tools.url, drip: drip.url, llm: { url: llm.url, origin: llm.origin } })
  port.once('message', async () => {
    await llm.stop()
    await drip.stop()
    await tools.stop()
    await bridge.stop()
    await redis.stop()
    port.postMessage('stopped')
  })
}

/** How long the probe waits for an answer before it counts it failed (status 0). */
const PROBE_WAIT_MS = 30_000

function probe(): void {
  const port = parentPort as NonNullable<typeof parentPort>
  port.on('message', async ({ id, url, body }: { id: number; url: string; body: unknown }) => {
    const started = performance.now()
    let status = 0
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(PROBE_WAIT_MS),
      })
      await response.arrayBuffer()
      status = response.status
    } catch {
      // Failed or timed out: status 0.
    }
    port.postMessage({ id, sent: { status, ms: performance.now() - started } })
  })
}
