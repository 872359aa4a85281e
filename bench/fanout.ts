/**
 * Measures how long the real render pipeline (lib/render) takes to render a
 * template that calls N independent REST tools, each answering after L ms:
 * independent calls run concurrently, at most six at once, so N ≤ 6 should
 * take about L and N = 10 about 2·L. bench/run.mjs bundles this file with
 * esbuild and runs it:
 *
 *   node fanout.mjs [--latency 100] [--renders 7] [--n 1,5,10]
 *
 * A node:http server on 127.0.0.1 (port 0) answers every request with the
 * JSON {"ok": true} after --latency ms, and counts the requests in flight.
 * For each N, an EmbeddedStore holds N tools shenma:tools:fan:t1..tN (GET
 * http://127.0.0.1:PORT/tI) and the direct prompt shenma:templates:bench:fanN
 * `{{fan_t1 "a"}}...{{fan_tN "a"}}`, rendered with renderPrompt: one untimed
 * warm-up render, then --renders timed ones (performance.now() around each
 * renderPrompt); the figure is the median. Every render's output is checked:
 * N answers (`map[ok:true]` each), nothing else, and no warnings. It prints,
 * on stdout:
 *
 *   {"node": "v20.x", "latencyMs": 100, "renders": 7,
 *    "results": [{"n": 1, "medianMs": 101.2, "samplesMs": [...], "maxConcurrency": 1, "requests": 8,
 *                 "problems": []}]}
 *
 * A render that fails is reported on stderr with a non-zero exit status; a
 * render whose output or warnings are wrong is listed in its N's problems.
 */
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import { renderPrompt } from '../lib/render/index'
import type { RenderOptions } from '../lib/render/index'
import { median, run } from './stats'
import { EmbeddedStore } from '../lib/store/embedded'

const ANSWER = 'map[ok:true]'

const OPTIONS: RenderOptions = {
  deadlineMs: 10_000,
  environMaxBytes: 1024 * 1024,
  tools: { timeoutMs: 5_000, baseUrl: undefined, allowedHosts: undefined },
}

interface Result {
  n: number
  medianMs: number
  samplesMs: number[]
  /** The most requests the server had in flight at once, over this N's renders (warm-up included). */
  maxConcurrency: number
  /** Requests the server received over this N's renders (warm-up included). */
  requests: number
  problems: string[]
}

interface Report {
  node: string
  latencyMs: number
  renders: number
  results: Result[]
}

/** The tool server: answers after a delay, and counts what it has in flight. */
class SlowServer {
  inFlight = 0
  maxInFlight = 0
  requests = 0
  readonly #server: Server

  constructor(readonly latencyMs: number) {
    this.#server = createServer((request, response) => {
      this.requests++
      this.inFlight++
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
      request.resume()
      setTimeout(() => {
        this.inFlight--
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ ok: true }))
      }, latencyMs)
    })
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(0, '127.0.0.1', resolve)
    })
    return (this.#server.address() as AddressInfo).port
  }

  resetCounts(): void {
    this.maxInFlight = this.inFlight
    this.requests = 0
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((resolve, reject) => this.#server.close((e) => (e ? reject(e) : resolve())))
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      latency: { type: 'string', default: '100' },
      renders: { type: 'string', default: '7' },
      n: { type: 'string', default: '1,5,10' },
    },
  })
  const latencyMs = positiveInt('latency', values.latency)
  const renders = positiveInt('renders', values.renders)
  const ns = (values.n ?? '').split(',').map((s) => positiveInt('n', s))

  const server = new SlowServer(latencyMs)
  const port = await server.listen()
  try {
    const report: Report = { node: process.version, latencyMs, renders, results: [] }
    for (const n of ns) {
      try {
        report.results.push(await benchOne(server, port, n, renders))
      } catch (e) {
        throw new Error(`N=${n}: ${e instanceof Error ? e.message : String(e)}`)
      }
    }
    process.stdout.write(JSON.stringify(report) + '\n')
  } finally {
    await server.close()
  }
}

/** The records of one N: its tools and its prompt, as [key, value] pairs. */
function records(port: number, n: number): [string, unknown][] {
  const out: [string, unknown][] = []
  const calls: string[] = []
  for (let i = 1; i <= n; i++) {
    out.push([
      `shenma:tools:fan:t${i}`,
      {
        name: `t${i}`,
        module: 'fan',
        type: 'restful',
        restful: { url: `http://127.0.0.1:${port}/t${i}`, method: 'GET' },
        description: `Fan-out benchmark tool ${i}: answers {"ok": true} after a delay`,
        parameters: { x: { type: 'string' } },
      },
    ])
    calls.push(`{{fan_t${i} "a"}}`)
  }
  out.push([`shenma:templates:bench:fan${n}`, { name: `fan${n}`, prompt: calls.join('') }])
  return out
}

async function benchOne(server: SlowServer, port: number, n: number, renders: number): Promise<Result> {
  const store = new EmbeddedStore(records(port, n))
  const id = `bench.fan${n}`
  const expected = ANSWER.repeat(n)
  const problems: string[] = []

  const renderOnce = async (): Promise<number> => {
    const start = performance.now()
    const rendered = await renderPrompt(store, id, {}, OPTIONS)
    const ms = performance.now() - start
    if (rendered.prompt !== expected) {
      problems.push(`rendered ${JSON.stringify(rendered.prompt).slice(0, 300)}, not ${n} × ${ANSWER}`)
    }
    for (const w of rendered.warnings) problems.push(`warning ${w.code}: ${w.message}`)
    return ms
  }

  server.resetCounts()
  await renderOnce() // warm-up: opens the connections, lets the JIT compile the hot paths
  const samplesMs: number[] = []
  for (let i = 0; i < renders; i++) samplesMs.push(await renderOnce())
  const requests = server.requests
  if (requests !== n * (renders + 1)) {
    problems.push(`the server received ${requests} requests, not ${n * (renders + 1)} (${n} per render)`)
  }
  return {
    n,
    medianMs: median(samplesMs),
    samplesMs,
    maxConcurrency: server.maxInFlight,
    requests,
    problems: [...new Set(problems)],
  }
}

function positiveInt(flag: string, text: string | undefined): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${flag} must be a positive integer, not ${text}`)
  return n
}

run(main)
