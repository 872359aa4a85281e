/**
 * Sends the Worker the hostile requests of issue 12's table, one after the
 * other, under `wrangler dev` on a real Redis (bench/worker.ts) with the
 * defaults the table was measured with (RENDER_TIMEOUT_MS 500,
 * TOOL_TIMEOUT_MS 300), and a real tool server (test/support/tool-server.ts)
 * that TOOL_ALLOWED_HOSTS allows as 127.0.0.1:PORT, so that localhost:PORT,
 * the same server, is a host tools may not reach. bench/run.mjs bundles this
 * file with esbuild (dependencies left to node_modules) and runs it:
 *
 *   node hostile.mjs --root DIR
 *
 * For each row: the answer's status and code, the time from sending the
 * request to the last byte of its answer, the longest log line the Worker
 * wrote meanwhile, what the row itself must show (no request past the
 * allow-list, no Redis request for a bad id, ...), and then an ordinary
 * render in the same Worker, which must answer 200. A row passes when its
 * answer is the expected one, its checks hold, it answered within the render
 * deadline plus 200 ms, and the next render answered 200. The last row needs
 * a Worker configured wrongly (RENDER_TIMEOUT_MS=abc): a second wrangler dev.
 * It prints, on stdout:
 *
 *   {"deadlineMs": 500, "boundMs": 700,
 *    "rows": [{"row": 1, "input": "...", "status": 200, "code": null, "ms": 12.3, "logLineBytes": 612,
 *              "next": 200, "problems": []}]}
 */
import { request } from 'node:http'
import { parseArgs } from 'node:util'
import { Redis } from '@upstash/redis'
import { restTool } from '../test/support/records'
import { startRedis } from '../test/support/redis-server'
import type { RedisServer } from '../test/support/redis-server'
import { SECRET, startToolServer } from '../test/support/tool-server'
import type { ToolServer, ToolServerStats } from '../test/support/tool-server'
import { startBridge } from '../test/support/upstash-bridge'
import type { Bridge } from '../test/support/upstash-bridge'
import { run } from './stats'
import {
  BOUND_MS,
  DEADLINE_MS,
  ORDINARY,
  RequestLines,
  TOOL_TIMEOUT_MS,
  attempt,
  codeOf,
  lostByProxy,
  post,
} from './hostile-common'
import { BridgeStats, log, startWrangler, takeDatabase, writeExamples } from './worker'
import type { WranglerDev } from './worker'

interface Answer {
  status: number
  code: string | null
  body: string
}

interface Row {
  row: number
  input: string
  /** The answer the row must give: its status, and its code when it is an error. */
  expect: { status: number; code?: string }
  send: (base: string, headers: Headers) => Promise<Response>
  /** What else must hold, as problems (none: it holds). */
  check?: (answer: Answer) => Promise<string[]>
}

interface RowReport {
  row: number
  input: string
  status: number
  code: string | null
  ms: number
  /** 0 when the Worker wrote no line for it. */
  logLineBytes: number
  /** How the answer was judged, when not by what the client received. */
  note?: string
  next: number
  problems: string[]
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { root: { type: 'string' } } })
  if (!values.root) throw new Error('--root (the repository) is required')
  const root = values.root

  let redis: RedisServer | undefined
  let bridge: Bridge | undefined
  let tools: ToolServer | undefined
  const devs: WranglerDev[] = []
  try {
    redis = await startRedis()
    bridge = await startBridge({ redisPort: redis.port })
    tools = await startToolServer()
    const token = await takeDatabase(bridge.url)
    await writeExamples(root, bridge.url, token)
    const stats = new BridgeStats(bridge.url, token)
    const toolUrl = tools.url
    await writeHostileRecords(bridge.url, token, toolUrl)

    const lines = new RequestLines()
    const vars = {
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: token,
      RENDER_TIMEOUT_MS: String(DEADLINE_MS),
      TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS),
      TOOL_ALLOWED_HOSTS: new URL(toolUrl).host,
    }
    const dev = await startWrangler(root, vars, lines.see)
    devs.push(dev)
    const misconfigured = await startWrangler(root, { ...vars, RENDER_TIMEOUT_MS: 'abc' }, lines.see)
    devs.push(misconfigured)
    log(`wrangler dev is ready on ${dev.base}, and misconfigured on ${misconfigured.base}`)
    const ordinary = (base: string) => post(base, ORDINARY.path, ORDINARY.body, new Headers())
    for (const base of [dev.base, misconfigured.base]) {
      const warm = base === dev.base ? await ordinary(base) : await fetch(`${base}/health`)
      if (warm.status !== 200) throw new Error(`the warm-up request answered ${warm.status}: ${await warm.text()}`)
    }

    const report: RowReport[] = []
    for (const [i, row] of rows(toolUrl, stats).entries()) {
      const base = row.row === 12 ? misconfigured.base : dev.base
      const id = `hostile-${i}`
      const started = performance.now()
      const sent = await attempt(async () => {
        const response = await row.send(base, new Headers({ 'x-request-id': id }))
        return { response, text: await response.text() }
      })
      let ms = performance.now() - started
      const line = await lines.of(id)
      const problems: string[] = []
      let answer: Answer | undefined
      let note: string | undefined
      if (typeof sent !== 'string' && !lostByProxy(sent.response.status, sent.text)) {
        answer = { status: sent.response.status, code: codeOf(sent.text), body: sent.text }
      } else if (line) {
        // wrangler dev's proxy can lose an answer the Worker gave (see lostByProxy): the Worker's line tells it.
        const lost = typeof sent === 'string' ? sent : `${sent.response.status} ${sent.text.slice(0, 60)}`
        note = `the client lost the answer (${lost}); the Worker's log line: ${line.status} in ${line.durationMs} ms`
        answer = { status: line.status, code: line.code, body: '' }
        ms = line.durationMs
      } else {
        problems.push(typeof sent === 'string' ? sent : `answered ${sent.response.status}: ${sent.text.slice(0, 300)}`)
      }
      const next = row.row === 12 ? await fetch(`${base}/health`) : await ordinary(base)
      await next.text()
      if (answer) {
        const wrong =
          answer.status !== row.expect.status || (row.expect.code !== undefined && answer.code !== row.expect.code)
        if (wrong) problems.push(`answered ${answer.status} ${answer.code ?? ''}: ${answer.body.slice(0, 300)}`)
        problems.push(...((await row.check?.(answer)) ?? []))
      }
      if (ms > BOUND_MS) problems.push(`took ${ms.toFixed(0)} ms, more than ${BOUND_MS}`)
      if (!line) problems.push('the Worker wrote no log line for it')
      if (next.status !== 200) problems.push(`the next ordinary request answered ${next.status}`)
      log(`row ${row.row}: ${answer?.status ?? '-'} ${answer?.code ?? ''} in ${ms.toFixed(1)} ms; next ${next.status}`)
      report.push({
        row: row.row,
        input: row.input,
        status: answer?.status ?? 0,
        code: answer?.code ?? null,
        ms,
        logLineBytes: line?.bytes ?? 0,
        next: next.status,
        ...(note === undefined ? {} : { note }),
        problems,
      })
    }
    process.stdout.write(
      JSON.stringify({
        deadlineMs: DEADLINE_MS,
        boundMs: BOUND_MS,
        rows: report,
      }) + '\n',
    )
  } finally {
    for (const dev of devs) await dev.stop()
    await tools?.stop()
    await bridge?.stop()
    await redis?.stop()
  }
}

/** The rows of the table: each a request, the answer it must give, and what else must hold. */
function rows(toolUrl: string, stats: BridgeStats): Row[] {
  const render = (name: string) => (base: string, headers: Headers) =>
    post(base, `/api/prompts/hostile.${name}/render`, { args: {} }, headers)
  const toolStats = async (group: string): Promise<ToolServerStats> =>
    (await (await fetch(`${toolUrl}/__stats?group=${group}`)).json()) as ToolServerStats
  const warnings = (answer: Answer): { code: string; message: string }[] => {
    try {
      return (JSON.parse(answer.body) as { warnings?: { code: string; message: string }[] }).warnings ?? []
    } catch {
      return []
    }
  }
  const longId = `${'a.'.repeat(4000)}a`
  const deepArgs = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`
  return [
    {
      row: 1,
      input: 'a POST tool redirected (307) to a host outside TOOL_ALLOWED_HOSTS',
      expect: { status: 200 },
      send: render('redirect'),
      check: async (answer) => [
        ...((await toolStats('stolen')).calls > 0 ? ['the redirect reached the other host'] : []),
        ...(warnings(answer).some((w) => w.code === 'TOOL_FAILED') ? [] : ['no TOOL_FAILED warning']),
      ],
    },
    {
      row: 2,
      input: 'GET /api/prompts/ + `a.` x 4000 + `a` (an 8 KB id)',
      expect: { status: 400, code: 'BAD_REQUEST' },
      send: async (base, headers) => {
        await stats.reset()
        return fetch(`${base}/api/prompts/${longId}`, { headers })
      },
      check: async () => ((await stats.requests()) > 0 ? ['the id reached Redis'] : []),
    },
    {
      row: 2,
      input: 'the same id on /render',
      expect: { status: 400, code: 'BAD_REQUEST' },
      send: async (base, headers) => {
        await stats.reset()
        return post(base, `/api/prompts/${longId}/render`, {}, headers)
      },
      check: async () => ((await stats.requests()) > 0 ? ['the id reached Redis'] : []),
    },
    {
      row: 3,
      input: '22 {{define}}s, each calling the next twice with .a and .b, inside {{if false}}',
      expect: { status: 200 },
      send: render('analysis'),
    },
    {
      row: 4,
      input: 'a number literal of 1,000,000 digits',
      expect: { status: 400, code: 'TEMPLATE_SYNTAX' },
      send: render('number'),
    },
    {
      row: 5,
      input: 'a string doubled 27 times, then html',
      expect: { status: 422, code: 'LIMIT_EXCEEDED' },
      send: render('doubled'),
    },
    ...(['html', 'js', 'urlquery'] as const).map((fn) => ({
      row: 5,
      input: `2 Mi characters that ${fn} would escape past the output limit`,
      expect: { status: 422, code: 'LIMIT_EXCEEDED' },
      send: render(`expand_${fn}`),
    })),
    {
      row: 6,
      input: 'tools answering 20 MB (with a Content-Length) and 100 MB (chunked)',
      expect: { status: 200 },
      send: render('big'),
      check: async (answer) => {
        const failed = warnings(answer).filter((w) => w.code === 'TOOL_FAILED' && /TOOL_MAX_BYTES/.test(w.message))
        return failed.length === 2 ? [] : [`${failed.length} warnings name TOOL_MAX_BYTES, not 2`]
      },
    },
    {
      row: 7,
      input: 'a path placeholder {id} given `..` and `.`',
      expect: { status: 200 },
      send: render('dots'),
      check: async () => ((await toolStats('dots')).calls > 0 ? ['a dot segment reached the tool server'] : []),
    },
    {
      row: 8,
      input: '{{range 100000}}{{a_tool (dict "i" .)}}{{end}}',
      expect: { status: 200 },
      send: render('many'),
      check: async (answer) => {
        const calls = (await toolStats('many')).calls
        const count = warnings(answer).length
        return [
          ...(calls > 64 ? [`${calls} tool calls reached the server`] : []),
          ...(count > 2 ? [`${count} warnings`] : []),
        ]
      },
    },
    {
      row: 8,
      input: 'one tool called identically 1,000,000 times: {{range 1000000}}{{(a_tool "x").method}}{{end}}',
      expect: { status: 503, code: 'RENDER_TIMEOUT' },
      send: render('same'),
      check: async () => {
        const calls = (await toolStats('same')).calls
        return calls === 1 ? [] : [`${calls} tool calls reached the server, not 1`]
      },
    },
    {
      row: 9,
      input: 'a 20 MB body with a Content-Length',
      expect: { status: 413, code: 'PAYLOAD_TOO_LARGE' },
      send: (base, headers) => bigPost(base, ORDINARY.path, 20 * 1024 * 1024, headers, true),
    },
    {
      row: 9,
      input: 'a 20 MB body streamed without a Content-Length',
      expect: { status: 413, code: 'PAYLOAD_TOO_LARGE' },
      send: (base, headers) => bigPost(base, ORDINARY.path, 20 * 1024 * 1024, headers, false),
    },
    {
      row: 10,
      input: 'args nested 5,000 deep, printed',
      expect: { status: 400 },
      send: (base, headers) => {
        headers.set('content-type', 'application/json')
        return fetch(`${base}/api/prompts/hostile.print_args/render`, {
          method: 'POST',
          headers,
          body: `{"args": ${deepArgs}}`,
        })
      },
    },
    {
      row: 10,
      input: 'a template nested 10,000 {{if}}s deep',
      expect: { status: 400, code: 'TEMPLATE_SYNTAX' },
      send: render('deep_if'),
    },
    {
      row: 11,
      input: 'a tool answering 500 with a body holding a password',
      expect: { status: 200 },
      send: render('secret'),
      check: async (answer) => (answer.body.includes(SECRET) ? ['the answer quotes the secret'] : []),
    },
    {
      row: 12,
      input: 'RENDER_TIMEOUT_MS=abc',
      expect: { status: 503, code: 'MISCONFIGURED' },
      send: (base, headers) => post(base, ORDINARY.path, ORDINARY.body, headers),
      check: async (answer) => (/RENDER_TIMEOUT_MS/.test(answer.body) ? [] : ['the answer does not name the setting']),
    },
  ]
}

/** The records the rows render: tools pointing at the tool server, and prompts under hostile.*. */
async function writeHostileRecords(bridgeUrl: string, token: string, toolUrl: string): Promise<void> {
  const elsewhere = toolUrl.replace('127.0.0.1', 'localhost')
  const tool = (name: string, url: string, parameters: unknown = {}, method?: string) =>
    restTool('h', name, url, { parameters, method })
  const define = (i: number, last: number) =>
    i === last
      ? `{{define "t${i}"}}{{.x}}{{end}}`
      : `{{define "t${i}"}}{{template "t${i + 1}" .a}}{{template "t${i + 1}" .b}}{{end}}`
  const doubled = (start: string, times: number, fn: string) =>
    `{{$s := "${start}"}}${'{{$s = print $s $s}}'.repeat(times)}{{${fn} $s}}`
  const prompts: Record<string, string> = {
    redirect: '{{h_redirect "an arg value that must stay here"}}',
    analysis: `${Array.from({ length: 22 }, (_, i) => define(i, 21)).join('')}{{if false}}{{template "t0" .}}{{end}}done`,
    number: `{{${'1'.repeat(1_000_000)}}}`,
    doubled: doubled('xx', 27, 'html'),
    expand_html: doubled('<<', 20, 'html'),
    expand_js: doubled('<<', 20, 'js'),
    expand_urlquery: doubled('<<', 20, 'urlquery'),
    big: '{{h_big20}}{{h_big100}}',
    dots: '{{h_item ".."}}{{h_item "."}}',
    many: '{{range 100000}}{{h_many (dict "i" .)}}{{end}}',
    same: '{{range 1000000}}{{(h_same "x").method}}{{end}}',
    print_args: '{{.args}}',
    deep_if: `${'{{if true}}'.repeat(10_000)}x${'{{end}}'.repeat(10_000)}`,
    secret: '{{h_secret}}',
  }
  const records: Record<string, string> = {
    'shenma:tools:h:redirect': JSON.stringify(
      tool(
        'redirect',
        `${toolUrl}/redirect/307/tools/r?to=${encodeURIComponent(`${elsewhere}/tools/stolen?group=stolen`)}`,
        [{ name: 'q', type: 'string' }],
        'POST',
      ),
    ),
    'shenma:tools:h:big20': JSON.stringify(tool('big20', `${toolUrl}/big/20000000/tools/b`)),
    'shenma:tools:h:big100': JSON.stringify(tool('big100', `${toolUrl}/chunked/big/100000000/tools/b`)),
    'shenma:tools:h:item': JSON.stringify(
      tool('item', `${toolUrl}/tools/a/{id}/b?group=dots`, [{ name: 'id', type: 'string' }]),
    ),
    'shenma:tools:h:many': JSON.stringify(tool('many', `${toolUrl}/tools/many?group=many`, { i: { type: 'integer' } })),
    'shenma:tools:h:same': JSON.stringify(tool('same', `${toolUrl}/tools/same?group=same`, { x: { type: 'string' } })),
    'shenma:tools:h:secret': JSON.stringify(tool('secret', `${toolUrl}/status/500/secret/tools/s`)),
  }
  for (const [name, prompt] of Object.entries(prompts))
    records[`shenma:templates:hostile:${name}`] = JSON.stringify({ prompt })
  const redis = new Redis({ url: bridgeUrl, token, enableTelemetry: false, automaticDeserialization: false })
  await redis.mset(records)
}

/**
 * A JSON body of about `bytes` bytes, written in 64 KiB chunks as the socket
 * takes them, with a Content-Length or without one (chunked), on a connection
 * of its own, as curl would send it. The Worker answers 413 long before the
 * end and stops reading: writing then stops, and the answer is what counts.
 * (A fetch here would take a pooled connection, which wrangler dev's proxy
 * may have closed after the last 413 without saying so.)
 */
function bigPost(base: string, path: string, bytes: number, headers: Headers, sized: boolean): Promise<Response> {
  const head = Buffer.from('{"args": {"code": "')
  const tail = Buffer.from('"}}')
  const chunk = Buffer.alloc(64 * 1024, 'x')
  const chunks = Math.ceil(bytes / chunk.length)
  headers.set('content-type', 'application/json')
  if (sized) headers.set('content-length', String(head.length + chunks * chunk.length + tail.length))
  return new Promise<Response>((resolve, reject) => {
    let answered = false
    const req = request(
      `${base}${path}`,
      { method: 'POST', agent: false, headers: Object.fromEntries(headers) },
      (res) => {
        answered = true
        const body: Buffer[] = []
        res.on('data', (b: Buffer) => body.push(b))
        res.on('end', () => resolve(new Response(Buffer.concat(body), { status: res.statusCode ?? 0 })))
        res.on('error', reject)
      },
    )
    // Once the Worker has answered and closed, writing fails: that is the point, not an error.
    req.on('error', (e) => (answered ? undefined : reject(e)))
    let written = 0
    const write = (): void => {
      while (!answered && written < chunks) {
        written++
        if (!req.write(chunk)) return void req.once('drain', write)
      }
      if (!answered) req.end(tail)
    }
    req.write(head)
    write()
  })
}

run(main)
