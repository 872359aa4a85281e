/**
 * The rows of issue 27's table, as bench/hostile-2.ts sends them: each its
 * input at the table's sizes, what the answer must be once the row is fixed,
 * and what it shows (bytes, counts, memory). What depends on a fix's design
 * (the budget of an MCP batch, of a chat's upstream requests) is a constant
 * below, to set to what the fix documents.
 */
import type { Redis } from '@upstash/redis'
import { mcpTool, restTool } from '../test/support/records'
import { ANSWER_READ_LIMIT_BYTES, REQUEST_WAIT_MS, attempt, codeOf, post, readBounded } from './hostile-common'
import type { WranglerDev } from './worker'

/** The most bytes an MCP batch's answer may have (row 3): the budget the fix documents (MCP_MAX_BYTES?). */
export const MCP_BATCH_BUDGET_BYTES = 4 * 1024 * 1024
/** How much workerd's memory may grow while row 3 is answered. */
export const RSS_GROWTH_LIMIT_BYTES = 128 * 1024 * 1024
/** The most bytes one request to the LLM may have (row 11): LLM_MAX_BYTES's default, the budget the issue names. */
export const LLM_REQUEST_BUDGET_BYTES = 4 * 1024 * 1024
/** The most bytes a chat's answer may have (row 11). */
export const CHAT_ANSWER_BUDGET_BYTES = 4 * 1024 * 1024
/** What a tags answer may hold beyond its text twice (row 11): the parsed form's 64 KiB, and the answer's envelope. */
export const TAGS_OVERHEAD_BYTES = 128 * 1024
export const ADMIN_TOKEN = 'hostile-admin-token'
export const LLM_KEY = 'sk-hostile-bench-0123456789abcdef'

export interface Servers {
  tools: string
  drip: string
  /** The LLM server's origin. */
  llm: string
  redis: Redis
}

/** What a row's input came to. */
export interface Outcome {
  status: number
  code: string | null
  /** What the row measured, in words: "answer 128.0 MB; workerd +543 MB". */
  shows: string
  problems: string[]
  /** When the row's time is not its one request's (row 7: its slowest render). */
  ms?: number
}

/** A shape of load that costs `wrangler dev` itself: many requests at once, or megabytes fetched by the Worker. */
export type DevServerLoad = 'requests' | 'bodies'

export interface Row {
  row: number
  input: string
  /**
   * `frozen`: on a Worker whose clock stands still during CPU work (bench/frozen-clock.ts). `miniflare`: on
   * the bundle under Miniflare, no dev server in front: under `wrangler dev`, each chunk of an answer to the
   * Worker's own fetch costs the dev server a loopback connection (a Worker that only hands such an answer on,
   * `new Response(res.body)`, exhausts workerd's 20,000 file descriptors the same way), which Cloudflare has not.
   */
  on?: 'frozen' | 'miniflare'
  /**
   * What of this row's load is the dev server's to carry as much as the Worker's: many requests at once, or
   * megabytes in the answers to the Worker's fetches (see `on`). Such a row runs under wrangler dev for the
   * record, beside what a Worker of a few lines meets under the same (bench/dev-server-floor.ts), and is
   * judged under Miniflare.
   */
  devServer?: DevServerLoad
  /** false: many requests, judged by their counts, not the time. */
  timed?: false
  /** How long the row may take before it is recorded as a timeout, if not REQUEST_WAIT_MS. */
  waitMs?: number
  /** false: no ordinary render meanwhile. */
  concurrent?: false
  run(dev: WranglerDev): Promise<Outcome>
}

interface Workers {
  start(): Promise<WranglerDev>
  stop(dev: WranglerDev): Promise<void>
}

interface Answer {
  status: number
  code: string | null
  text: string
  /** Its size, or, when `cut`, how much of it the bench read before it stopped. */
  bytes: number
  cut: boolean
}

const COLD_RENDERS = 6
const TOOL_RECORDS = 387
const BIG_ENVIRON_BYTES = 4 * 1024 * 1024
const BIG_ENVIRON_KEYS = 64
const LABEL = 'hostile-race'

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`

export function rows(servers: Servers, workers: Workers): Row[] {
  const { redis } = servers
  const draft = (parameters: unknown, args: unknown) => (dev: WranglerDev) =>
    answer(post(dev.base, '/api/render', { prompt: 'x', parameters, args }, new Headers()))
  const refusedNaming =
    (keyword: RegExp) =>
    (a: Answer): Outcome =>
      judged(a, a.status === 400 && keyword.test(a.text) ? [] : [`answered ${a.status}, not 400 naming ${keyword}`])
  const chatRow =
    (model: string, prompt: string, body: object = {}) =>
    (dev: WranglerDev) =>
      answer(post(dev.base, `/api/prompts/hostile2.${prompt}/chat`, { model, ...body }, new Headers()))
  const upstream = async (model: string): Promise<number[]> => {
    const res = await fetch(`${servers.llm}/__requests?model=${model}`)
    const { requests } = (await res.json()) as { requests: { body: unknown }[] }
    return requests.map((r) => Buffer.byteLength(JSON.stringify(r.body)))
  }
  /** Scripts `model` afresh: a row may run twice (Row.devServer), and counts only its own requests. */
  const script = async (model: string, answers: object[]) => {
    await fetch(`${servers.llm}/__reset?model=${model}`, { method: 'POST' })
    await fetch(`${servers.llm}/__script?model=${model}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answers, repeat_last: true }),
    })
  }
  /** A name of its own for each run of a row that writes: a row may run twice (Row.devServer). */
  let runs = 0
  const admin = (dev: WranglerDev, method: string, path: string, body?: unknown) =>
    answer(
      fetch(`${dev.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
  const ifChain = Object.fromEntries(
    Array.from({ length: 25 }, (_, k) => {
      const next = { $ref: `#/$defs/d${k + 1}` }
      return [`d${k}`, k === 24 ? { type: 'string', minLength: 2 } : { if: next, then: next, else: next }]
    }),
  )
  const anyOfChain = Array.from({ length: 18 }).reduce<object>((inner) => ({ anyOf: [inner, { type: 'null' }] }), {
    type: 'string',
    minLength: 2,
  })

  return [
    {
      row: 1,
      input: 'MCP tools/call of a GET REST tool with 40,000 undeclared arguments',
      run: async (dev) => {
        const args = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`a${i}`, 'vv']))
        const a = await answer(
          mcp(dev, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'h2_get', arguments: args } }),
        )
        const json = parse(a.text) as { result?: { isError?: boolean; content?: { text?: string }[] }; error?: unknown }
        const refused = (a.status >= 400 && a.status < 500) || json.result?.isError === true || json.error !== undefined
        // Made, the call must have dropped the arguments h2_get does not declare: the tool server echoes its query.
        const echo = parse(json.result?.content?.[0]?.text ?? '') as { query?: Record<string, unknown> }
        const undeclared = Object.keys(echo.query ?? {}).filter((name) => name in args).length
        return {
          ...judged(
            a,
            refused || undeclared === 0 ? [] : [`the call was made with ${undeclared} undeclared arguments`],
          ),
          shows: refused ? 'refused' : `the call made with ${undeclared} of the 40,000 undeclared arguments`,
        }
      },
    },
    {
      row: 2,
      input: 'a draft\'s `format: "url"` given a 33-letter arg',
      run: async (dev) =>
        refusedNaming(/format/)(
          await draft(
            { type: 'object', properties: { u: { type: 'string', format: 'url' } } },
            { u: `http://${'a'.repeat(33)}.a!` },
          )(dev),
        ),
    },
    {
      row: 2,
      input: "a draft's `uniqueItems` over 40,000 arrays",
      run: async (dev) =>
        refusedNaming(/uniqueItems/)(
          await draft(
            { type: 'object', properties: { a: { type: 'array', uniqueItems: true } } },
            { a: Array.from({ length: 40_000 }, (_, i) => [i]) },
          )(dev),
        ),
    },
    {
      row: 2,
      input: "a draft's `if/then/else` chain of 24 `$ref` levels",
      run: async (dev) =>
        refusedNaming(/\bif\b|\$ref/)(
          await draft({ type: 'object', properties: { s: { $ref: '#/$defs/d0' } }, $defs: ifChain }, { s: 'x' })(dev),
        ),
    },
    ...(['resources/read', 'tools/call'] as const).map((method): Row => ({
      row: 3,
      input:
        method === 'resources/read'
          ? 'an MCP batch of 32 resources/read of a 4 MB environ subtree'
          : 'an MCP batch of 32 tools/call of a tool answering 1 MB',
      ...(method === 'tools/call' ? { devServer: 'bodies' } : {}),
      run: async (dev) => {
        const params = method === 'resources/read' ? { uri: 'environ://h2big' } : { name: 'h2_big', arguments: {} }
        const batch = Array.from({ length: 32 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method, params }))
        const before = dev.workerdRss()
        let peak = before
        const sampler = setInterval(() => (peak = Math.max(peak, dev.workerdRss())), 20)
        const a = await answer(mcp(dev, batch)).finally(() => clearInterval(sampler))
        peak = Math.max(peak, dev.workerdRss())
        const problems = [
          ...(a.bytes > MCP_BATCH_BUDGET_BYTES ? [`answered ${mb(a.bytes)}, over ${mb(MCP_BATCH_BUDGET_BYTES)}`] : []),
          ...(peak - before >= RSS_GROWTH_LIMIT_BYTES ? [`workerd grew ${mb(peak - before)}`] : []),
          ...(a.status === 200 ? [] : [`answered ${a.status}`]),
        ]
        return { ...judged(a, problems), shows: `answer ${mb(a.bytes)}; workerd ${mb(before)} -> peak ${mb(peak)}` }
      },
    })),
    {
      row: 4,
      input: "`{{range}}{{tool $.args.m}}` with a 100 KB map failing the tool's validation (a deployed clock)",
      on: 'frozen',
      run: async (dev) => {
        const m = Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`key${i}`, 'x'.repeat(16)]))
        const a = await answer(post(dev.base, '/api/prompts/hostile2.loop/render', { args: { m } }, new Headers()))
        return judged(a, [422, 503].includes(a.status) ? [] : [`answered ${a.status}, not the step budget's error`])
      },
    },
    {
      row: 5,
      input: 'an MCP tool answering 1 MB without a blank line, in 16-byte chunks (Miniflare)',
      on: 'miniflare',
      run: async (dev) => {
        const a = await answer(post(dev.base, '/api/prompts/hostile2.drip/render', {}, new Headers()))
        return judged(a, a.status === 200 ? [] : [`answered ${a.status}`])
      },
    },
    {
      row: 5,
      input: 'an LLM stream of 1 MB without a blank line, in 16-byte chunks (Miniflare)',
      on: 'miniflare',
      // A streamed chat lasts as long as its provider streams, within CHAT_TIMEOUT_MS, not the render's deadline:
      // what the row must show is that the stream is handed on in pieces and the renders meanwhile are not held up.
      timed: false,
      run: async (dev) => {
        const started = performance.now()
        const a = await chatRow('drip', 'plain', { stream: true })(dev)
        const outcome = judged(a, a.status === 200 || a.status === 502 ? [] : [`answered ${a.status}`])
        return { ...outcome, shows: `${outcome.shows} in ${(performance.now() - started).toFixed(0)} ms` }
      },
    },
    {
      row: 6,
      input: '3 × 40 PUTs into a label while it is promoted',
      devServer: 'requests',
      timed: false,
      run: async (dev) => {
        const lost = `lost${++runs}`
        const acknowledged: number[] = []
        const statuses = new Map<number, number>()
        for (let round = 0; round < 3; round++) {
          const puts = Array.from({ length: 40 }, async (_, j) => {
            const n = round * 40 + j
            const a = await admin(dev, 'PUT', `/api/environs/${lost}.k${n}?label=${LABEL}`, { n })
            statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1)
            if (a.status === 200) acknowledged.push(n)
          })
          const promote = admin(dev, 'POST', `/api/labels/${LABEL}/promote`)
          await Promise.all([...puts, promote])
        }
        const keys = acknowledged.flatMap((n) => [
          `shenma:environs:${lost}:k${n}`,
          `shenma:labels:${LABEL}:environs:${lost}:k${n}`,
        ])
        const found = keys.length === 0 ? [] : await redis.mget<(string | null)[]>(...keys)
        const missing = acknowledged.filter((_, i) => found[2 * i] === null && found[2 * i + 1] === null).length
        const answered = [...statuses].map(([s, c]) => `${c} × ${s}`).join(', ')
        return {
          status: 200,
          code: null,
          shows: `${missing} of ${acknowledged.length} acknowledged writes lost (PUTs: ${answered})`,
          problems: missing === 0 ? [] : [`${missing} acknowledged writes lost`],
        }
      },
    },
    {
      row: 7,
      input: `${TOOL_RECORDS} tool records, then ${COLD_RENDERS} cold renders of a prompt calling no tool`,
      concurrent: false,
      waitMs: COLD_RENDERS * 2 * REQUEST_WAIT_MS,
      run: async () => {
        const keys = Array.from({ length: TOOL_RECORDS }, (_, i) => `shenma:tools:many:t${i}`)
        const record = (i: number) => JSON.stringify(restTool('many', `t${i}`, `${servers.tools}/tools/t${i}`))
        await redis.mset(Object.fromEntries(keys.map((key, i) => [key, record(i)])))
        const answers: { status: number; ms: number }[] = []
        try {
          for (let i = 0; i < COLD_RENDERS; i++) {
            const dev = await workers.start()
            const started = performance.now()
            const a = await attempt(() =>
              answer(post(dev.base, '/api/prompts/hostile2.notool/render', {}, new Headers())),
            )
            answers.push({ status: typeof a === 'string' ? 0 : a.status, ms: performance.now() - started })
            await workers.stop(dev)
          }
        } finally {
          await redis.del(...keys)
        }
        const failed = answers.filter((a) => a.status !== 200).length
        return {
          status: failed === 0 ? 200 : (answers.find((a) => a.status !== 200)?.status ?? 0),
          code: null,
          ms: Math.max(...answers.map((a) => a.ms)),
          shows: `${COLD_RENDERS - failed} of ${COLD_RENDERS} answered 200 (${answers.map((a) => `${a.status} in ${a.ms.toFixed(0)} ms`).join(', ')})`,
          problems: failed === 0 ? [] : [`${failed} of ${COLD_RENDERS} cold renders did not answer 200`],
        }
      },
    },
    {
      row: 8,
      input: 'PUT /api/tools/translate_zh_en with `"name": "zh:en"`',
      run: async (dev) => {
        const a = await admin(
          dev,
          'PUT',
          '/api/tools/translate_zh_en',
          restTool('translate', 'zh:en', `${servers.tools}/tools/t`),
        )
        const written = (await redis.exists('shenma:tools:translate:zh:en')) > 0
        return judged(a, [
          ...(a.status === 400 ? [] : [`answered ${a.status}, not 400`]),
          ...(written ? ['shenma:tools:translate:zh:en was written'] : []),
        ])
      },
    },
    {
      row: 9,
      input: '20 concurrent PUTs after an out-of-band change',
      devServer: 'requests',
      timed: false,
      run: async (dev) => {
        const doc = `race${++runs}.doc`
        const first = await admin(dev, 'PUT', `/api/environs/${doc}`, { v: 'first' })
        await redis.set(`shenma:environs:${doc.replace('.', ':')}`, JSON.stringify({ v: 'out of band' }))
        const puts = await Promise.all(
          Array.from({ length: 20 }, (_, i) => admin(dev, 'PUT', `/api/environs/${doc}`, { v: i })),
        )
        const ok = puts.filter((p) => p.status === 200).length
        const a = await answer(fetch(`${dev.base}/api/environs/${doc}/versions`))
        const versions = (parse(a.text) as { data?: { message: string | null }[] }).data ?? []
        const found = versions.filter((v) => /by other means/.test(v.message ?? '')).length
        return {
          ...judged(a, found === 1 ? [] : [`${found} "found changed" versions, not 1`]),
          shows: `${found} "found changed by other means" versions (first PUT ${first.status}, ${ok} of 20 PUTs 200)`,
        }
      },
    },
    {
      row: 10,
      input: "a provider's 400 echoing the request's Authorization header",
      run: async (dev) => {
        await script('leaky', [{ status: 400, error: `Invalid request; you sent Authorization: Bearer ${LLM_KEY}` }])
        const a = await chatRow('leaky', 'plain')(dev)
        const leaked = a.text.includes(LLM_KEY)
        return {
          ...judged(a, [
            ...(a.status === 400 ? [] : [`answered ${a.status}`]),
            ...(leaked ? ['the answer quotes LLM_API_KEY'] : []),
          ]),
          shows: leaked ? 'LLM_API_KEY in the answer' : 'the key absent',
        }
      },
    },
    {
      row: 11,
      input: 'a model calling a tool with 3.9 MB of arguments each round',
      devServer: 'bodies',
      run: async (dev) => {
        const call = { id: 'c1', name: 'h2_echo', arguments: JSON.stringify({ x: 'y'.repeat(3_900_000) }) }
        await script('calls', [{ tool_calls: [call] }])
        const a = await chatRow('calls', 'calls')(dev)
        const sent = await upstream('calls')
        const total = sent.reduce((s, b) => s + b, 0)
        return {
          ...judged(a, [
            ...(sent.some((b) => b > LLM_REQUEST_BUDGET_BYTES)
              ? [`a request upstream of ${mb(Math.max(...sent))}`]
              : []),
            ...(a.bytes > CHAT_ANSWER_BUDGET_BYTES ? [`answered ${mb(a.bytes)}`] : []),
          ]),
          shows: `${mb(total)} sent upstream in ${sent.length} requests; answer ${mb(a.bytes)}`,
        }
      },
    },
    {
      row: 11,
      input: 'a 3.5 MB answer in tags',
      devServer: 'bodies',
      run: async (dev) => {
        const content = '<actions>x</actions>'.repeat(175_000)
        await script('tags', [{ content }])
        const a = await chatRow('tags', 'tags')(dev)
        // The answer carries the model's text and its parsed tags, which lib/chat/tags.ts bounds to the text's
        // length and 64 KiB: twice the text and that, and a little for the rest of the answer.
        const bound = 2 * content.length + TAGS_OVERHEAD_BYTES
        return {
          ...judged(a, a.bytes > bound ? [`answered ${mb(a.bytes)}, more than ${mb(bound)}`] : []),
          shows: `answer ${mb(a.bytes)}`,
        }
      },
    },
    {
      row: 12,
      input: 'a draft schema with an 18-level `anyOf` chain',
      run: async (dev) =>
        refusedNaming(/./)(await draft({ type: 'object', properties: { a: anyOfChain } }, { a: 'x' })(dev)),
    },
    {
      row: 12,
      input: 'a draft schema with a self-`$ref`',
      run: async (dev) => refusedNaming(/./)(await draft({ type: 'object', $ref: '#' }, { a: 1 })(dev)),
    },
  ]
}

/** The records the rows use: tools on the tool, drip and MCP servers, a 4 MB environ subtree, prompts hostile2.*. */
export async function writeRecords({ tools, drip, redis }: Servers): Promise<void> {
  const piece = 'z'.repeat(BIG_ENVIRON_BYTES / BIG_ENVIRON_KEYS)
  const records: Record<string, string> = {
    'shenma:tools:h2:get': JSON.stringify(restTool('h2', 'get', `${tools}/tools/get?group=get`)),
    'shenma:tools:h2:big': JSON.stringify(restTool('h2', 'big', `${tools}/big/1000000/tools/b`, { parameters: {} })),
    'shenma:tools:h2:strict': JSON.stringify(
      restTool('h2', 'strict', `${tools}/tools/strict?group=strict`, {
        parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      }),
    ),
    'shenma:tools:h2:drip': JSON.stringify(mcpTool('h2', 'drip', `${drip}/mcp`)),
    'shenma:tools:h2:echo': JSON.stringify(
      restTool('h2', 'echo', `${tools}/tools/echo?group=echo`, { method: 'POST' }),
    ),
  }
  for (let i = 0; i < BIG_ENVIRON_KEYS; i++) records[`shenma:environs:h2big:k${i}`] = JSON.stringify(piece)
  const prompts: Record<string, object> = {
    loop: { prompt: '{{range 100000000}}{{h2_strict $.args.m}}{{end}}' },
    drip: { prompt: '{{h2_drip}}' },
    plain: { prompt: 'Say hello.' },
    notool: { prompt: 'A prompt that calls no tool.' },
    calls: { prompt: 'Call h2_echo.', tools: ['h2_echo'] },
    tags: { prompt: 'Answer in tags.', returns: { format: 'tags', tags: ['actions', 'read', 'code', 'task'] } },
  }
  for (const [name, record] of Object.entries(prompts))
    records[`shenma:templates:hostile2:${name}`] = JSON.stringify(record)
  await redis.mset(records)
}

function mcp(dev: WranglerDev, body: unknown): Promise<Response> {
  const headers = new Headers({ accept: 'application/json, text/event-stream' })
  return post(dev.base, '/mcp', body, headers)
}

async function answer(sent: Promise<Response>): Promise<Answer> {
  const response = await sent
  const { text, bytes, cut } = await readBounded(response)
  // Only an error has a code; parsing a success of megabytes would hold the bench's loop for nothing.
  return { status: response.status, code: response.status >= 400 ? codeOf(text) : null, text, bytes, cut }
}

/** The outcome of a row whose answer is `a` and whose own checks found `problems`; an endless answer is one more. */
function judged(a: Answer, problems: string[]): Outcome {
  const endless = a.cut ? [`answered more than ${mb(ANSWER_READ_LIMIT_BYTES)} (the bench stopped reading)`] : []
  return {
    status: a.status,
    code: a.code,
    shows: `answer ${a.cut ? '> ' : ''}${a.bytes} bytes`,
    problems: [...endless, ...problems],
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return {}
  }
}
