// A local OpenAI-compatible provider for POST /v1/chat/completions. What it
// does is read from the request's `model`, so tests need no setup calls:
//
//   ok (and any model not below)  200 chat completion, content `echo: <last message's content>`;
//                                 with `"stream": true` an SSE stream of the same text, word by word
//   fail-N                        the first N requests of that exact model string answer 500, later ones like ok
//   rate-limited-N                the same with 429
//   timeout-N                     the same, but the failing requests hang until the client leaves or the server stops
//   garbage-N                     the same, but the failing requests answer 200 `{"unexpected": true}`
//   malformed-N                   the same, but the failing requests answer 200 with JSON cut short
//   missing-model                 404 model_not_found
//   bad-request                   400 invalid_request_error
//   stream-cut                    streams two chunks, then destroys the socket (no [DONE]); without
//                                 `"stream": true`, half of the JSON completion, then the same
//   stream-stall                  streams one chunk, then silence until the client leaves or the server stops;
//                                 without `"stream": true`, the headers and half of the JSON completion, then the same
//   reject-big-N                  400 whose error body is N bytes, written lazily and stopped when the client leaves
//   reject-stall                  400 with the start of an error body, then silence until the client leaves
//   big-N                         a completion whose content is N `x`s, written lazily without a Content-Length
//                                 (a piece whenever the client has taken the last) and stopped when the client
//                                 leaves; with `"stream": true`, chunks of 64 KiB of content each, then [DONE]
//
// A model can instead be scripted, whatever its name: `POST /__script?model=NAME`
// with `{ "answers": ScriptedAnswer[], "repeat_last"?: boolean }` has the Nth
// request of that exact model since then take answers[N-1] (a completion,
// tool calls included, streamed when asked; a hang; or an error status), and
// past the end the last answer again with `repeat_last`, else a 500
// `script exhausted: N answers scripted`. Setting a script forgets the model's
// records, so the count starts with it.
//
// Every request with a JSON body naming a model is recorded under that model on
// arrival (`LlmRequestRecord`). `GET /__requests?model=NAME` answers
// `{ requests: LlmRequestRecord[] }`; `POST /__reset?model=NAME` forgets the
// model's records and script and so restarts its fail/rate-limited/timeout/garbage count;
// `GET /__idle?model=NAME` answers `LlmIdle` once no answer of the model is
// being written (an event to wait on, for a client that should have left).
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import { closeNow, listenOnLoopback } from './ports'
import { messageOf, send } from './serving'

export interface LlmServer {
  /** Base URL including the version path, e.g. `http://127.0.0.1:40123/v1` (no trailing slash). */
  url: string
  /** Resolves once `count` requests of `model` have arrived (since its last reset). */
  arrived(model: string, count?: number): Promise<void>
  stop(): Promise<void>
}

/** One request to /v1/chat/completions as it arrived. */
export interface LlmRequestRecord {
  /** `performance.now()` of the server process when the request arrived, in ms. */
  at: number
  /** The parsed JSON body. */
  body: Record<string, unknown>
  /** The `authorization` header (`Bearer <key>`), or null when there was none. */
  authorization: string | null
}

export const COMPLETION_ID = 'chatcmpl-test'
export const CREATED = 1700000000
export const SYSTEM_FINGERPRINT = 'fp_test'
export const USAGE = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } as const
export const FAIL_MESSAGE = 'upstream exploded'
export const RATE_LIMIT_MESSAGE = 'Rate limit reached: retry later'
export const BAD_REQUEST_MESSAGE = "Invalid request: the model 'bad-request' refuses every request"
export const GARBAGE = { unexpected: true } as const

/** What `/__idle` answers: how many answers of the model the client left before they were complete. */
export interface LlmIdle {
  cutShort: number
}

export type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number }

/** A tool call a scripted answer asks for; `arguments` goes out as it is, valid JSON or not. */
export interface ScriptedToolCall {
  id: string
  name: string
  arguments: string
}

/**
 * One answer of a scripted model (`POST /__script`). Without `hang` or `status`, a chat
 * completion: `content` defaults to null when there are tool calls, else ''; `finish_reason`
 * to `tool_calls` when there are tool calls, else `stop`; `usage` to USAGE.
 */
export interface ScriptedAnswer {
  content?: string | null
  tool_calls?: ScriptedToolCall[]
  finish_reason?: string
  usage?: Usage
  /** Never answers, until the client leaves or the server stops. */
  hang?: true
  /** Answers this error status (400 to 599) with an OpenAI error body, `error` its message. */
  status?: number
  error?: string
}

/** A model's script as `/__script` took it. */
interface Script {
  answers: ScriptedAnswer[]
  repeatLast: boolean
}

/** A big-N answer's content comes in pieces of this many bytes. */
const BIG_PIECE = 64 * 1024
const BIG = /^big-(\d+)$/
const REJECT_BIG = /^reject-big-(\d+)$/

/** What a failing request of a `<kind>-N` model does. */
type Failure = 'fail' | 'rate-limited' | 'timeout' | 'garbage' | 'malformed'

const FAILING = /^(fail|rate-limited|timeout|garbage|malformed)-([1-9]\d*)$/

/** The answer's text for a request: `echo: ` and the last message's content (text parts joined). */
export function echoText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : []
  const last = messages.at(-1) as { content?: unknown } | undefined
  return `echo: ${contentText(last?.content)}`
}

/** The streamed pieces of a text: one word each, with the whitespace after it, so they join back into the text. */
export function echoWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? [text]
}

export async function startLlmServer(): Promise<LlmServer> {
  const models = new Map<string, LlmRequestRecord[]>()
  const recordsOf = (model: string): LlmRequestRecord[] => {
    let records = models.get(model)
    if (!records) models.set(model, (records = []))
    return records
  }
  /** Who waits for requests of a model to arrive (`arrived`). */
  const waiters: { model: string; count: number; resolve: () => void }[] = []
  const wake = (): void => {
    for (const waiter of waiters.filter((w) => (models.get(w.model)?.length ?? 0) >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }
  /** Answers of each model being written, those the client left, and who waits for none to be written (`/__idle`). */
  const writing = new Map<string, { active: number; cutShort: number }>()
  const writingOf = (model: string) => {
    let state = writing.get(model)
    if (!state) writing.set(model, (state = { active: 0, cutShort: 0 }))
    return state
  }
  const idleWaiters: { model: string; resolve: (idle: LlmIdle) => void }[] = []
  const wakeIdle = (): void => {
    for (const waiter of idleWaiters.filter((w) => writingOf(w.model).active === 0)) {
      idleWaiters.splice(idleWaiters.indexOf(waiter), 1)
      waiter.resolve({ cutShort: writingOf(waiter.model).cutShort })
    }
  }
  /** Tracks an answer from its first byte to its end or the client leaving. */
  const track = (model: string, res: ServerResponse): void => {
    const state = writingOf(model)
    state.active++
    res.once('close', () => {
      if (!res.writableFinished) state.cutShort++
      state.active--
      wakeIdle()
    })
  }
  /** Each scripted model's script, kept until the model is reset or scripted again. */
  const scripts = new Map<string, Script>()
  /** Responses left hanging or stalled, destroyed on stop. */
  const hanging = new Set<ServerResponse>()
  let stopping = false
  const hang = (res: ServerResponse): void => {
    hanging.add(res)
    res.once('close', () => hanging.delete(res))
    if (stopping) res.destroy()
  }

  const admin = async (req: IncomingMessage, url: URL): Promise<[number, unknown]> => {
    const model = url.searchParams.get('model')
    if (model === null) return [400, { error: 'the model query parameter is required' }]
    if (url.pathname === '/__idle' && req.method === 'GET') {
      return [200, await new Promise<LlmIdle>((resolve) => (idleWaiters.push({ model, resolve }), wakeIdle()))]
    }
    if (url.pathname === '/__requests' && req.method === 'GET') {
      return [200, { requests: (models.get(model) ?? []).map((record) => ({ ...record })) }]
    }
    if (url.pathname === '/__reset' && req.method === 'POST') {
      // A new record: requests still in flight no longer count.
      models.delete(model)
      writing.delete(model)
      scripts.delete(model)
      return [200, { ok: true }]
    }
    if (url.pathname === '/__script' && req.method === 'POST') {
      let script: Script
      try {
        script = parseScript(await readBody(req))
      } catch (error) {
        return [400, { error: `bad script for ${model}: ${messageOf(error)}` }]
      }
      // The script's count is the model's record's, so both start now.
      models.delete(model)
      writing.delete(model)
      scripts.set(model, script)
      return [200, { ok: true }]
    }
    return [404, { error: `no admin route ${req.method} ${url.pathname}` }]
  }

  const completions = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const at = performance.now()
    let body: Record<string, unknown>
    try {
      body = await readBody(req)
    } catch (error) {
      sendError(res, 400, messageOf(error), 'invalid_request_error')
      return
    }
    const model = body.model
    if (typeof model !== 'string' || model === '') {
      sendError(res, 400, 'you must provide a model parameter', 'invalid_request_error')
      return
    }
    const records = recordsOf(model)
    records.push({ at, body, authorization: req.headers.authorization ?? null })
    const nth = records.length
    wake()

    const script = scripts.get(model)
    if (script) {
      await answerScripted(res, model, script, nth, body)
      return
    }
    const failing = FAILING.exec(model)
    if (failing && nth <= Number(failing[2])) {
      const kind = failing[1] as Failure
      if (kind === 'fail') sendError(res, 500, FAIL_MESSAGE, 'server_error')
      else if (kind === 'rate-limited') {
        sendError(res, 429, RATE_LIMIT_MESSAGE, 'requests', 'rate_limit_exceeded')
      } else if (kind === 'garbage') send(res, 200, GARBAGE)
      else if (kind === 'malformed') {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        res.end('{"id": "chatcmpl-test", "choices": [')
      } else hang(res)
      return
    }
    if (model === 'missing-model') {
      sendError(res, 404, `The model \`${model}\` does not exist`, 'invalid_request_error', 'model_not_found')
      return
    }
    if (model === 'bad-request') {
      sendError(res, 400, BAD_REQUEST_MESSAGE, 'invalid_request_error')
      return
    }
    const rejectBig = REJECT_BIG.exec(model)
    if (rejectBig || model === 'reject-stall') {
      track(model, res)
      res.writeHead(400, { 'Content-Type': 'application/json' })
      if (!(await write(res, '{"error": {"type": "invalid_request_error", "message": "'))) return
      if (!rejectBig) return hang(res)
      for (let sent = 0, size = Number(rejectBig[1]); sent < size; sent += BIG_PIECE) {
        if (!(await write(res, 'x'.repeat(Math.min(BIG_PIECE, size - sent))))) return
      }
      res.end('"}}')
      return
    }

    const big = BIG.exec(model)
    if (big) {
      track(model, res)
      await sendBig(res, model, Number(big[1]), body.stream === true)
      return
    }
    const text = echoText(body)
    if (body.stream === true) {
      await stream(res, model, text, body)
      return
    }
    const json = JSON.stringify(completion(model, text))
    if (model === 'stream-cut' || model === 'stream-stall') {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      if (!(await write(res, json.slice(0, json.length >> 1)))) return
      if (model === 'stream-cut') res.destroy()
      else hang(res)
      return
    }
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(json)
  }

  const stream = async (res: ServerResponse, model: string, text: string, body: Record<string, unknown>) => {
    const deltas = [{ role: 'assistant', content: '' }, ...echoWords(text).map((word) => ({ content: word }))]
    const events = streamEvents(model, deltas, 'stop', USAGE, body)
    const limit = model === 'stream-cut' ? 2 : model === 'stream-stall' ? 1 : events.length
    if (!(await sendEvents(res, events.slice(0, limit)))) return
    if (model === 'stream-cut') res.destroy()
    else if (model === 'stream-stall') hang(res)
    else res.end()
  }

  const answerScripted = async (
    res: ServerResponse,
    model: string,
    script: Script,
    nth: number,
    body: Record<string, unknown>,
  ): Promise<void> => {
    const { answers, repeatLast } = script
    const answer = answers[nth - 1] ?? (repeatLast ? answers.at(-1) : undefined)
    if (!answer) {
      sendError(res, 500, `script exhausted: ${answers.length} answers scripted`, 'server_error')
      return
    }
    if (answer.hang) {
      // Tracked, so that /__idle counts the client leaving it.
      track(model, res)
      return hang(res)
    }
    if (answer.status !== undefined) {
      const { status } = answer
      // The same type (and code) as the name-based errors of that status, so clients classify them alike.
      if (status === 429) sendError(res, status, answer.error ?? RATE_LIMIT_MESSAGE, 'requests', 'rate_limit_exceeded')
      else if (status >= 500) sendError(res, status, answer.error ?? FAIL_MESSAGE, 'server_error')
      else sendError(res, status, answer.error ?? `the script answers ${status}`, 'invalid_request_error')
      return
    }
    const toolCalls = answer.tool_calls ?? []
    const content = answer.content !== undefined ? answer.content : toolCalls.length > 0 ? null : ''
    const finishReason = answer.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop')
    const usage = answer.usage ?? USAGE
    if (body.stream !== true) {
      send(res, 200, completion(model, content, toolCalls, finishReason, usage))
      return
    }
    const deltas: Record<string, unknown>[] = [
      // What OpenAI sends: a null content opens an answer that has none, '' one whose text follows.
      { role: 'assistant', content: content === null ? null : '' },
      ...(content ? echoWords(content).map((word) => ({ content: word })) : []),
    ]
    toolCalls.forEach(({ id, name, arguments: args }, index) => {
      deltas.push({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] })
      for (const piece of pieces(args)) deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] })
    })
    if (await sendEvents(res, streamEvents(model, deltas, finishReason, usage, body))) res.end()
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://llm-server')
    let handled: Promise<void>
    if (url.pathname.startsWith('/__')) {
      handled = admin(req, url).then(([status, payload]) => send(res, status, payload))
    } else if (url.pathname === '/v1/chat/completions') {
      handled =
        req.method === 'POST'
          ? completions(req, res)
          : Promise.resolve(sendError(res, 405, `${req.method} is not allowed here`, 'invalid_request_error'))
    } else {
      handled = Promise.resolve(
        sendError(res, 404, `no route ${req.method} ${url.pathname}`, 'invalid_request_error', 'unknown_url'),
      )
    }
    handled.catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, messageOf(error), 'server_error')
      else res.destroy()
    })
  })
  const port = await listenOnLoopback(server)

  return {
    url: `http://127.0.0.1:${port}/v1`,
    arrived(model, count = 1) {
      return new Promise((resolve) => {
        waiters.push({ model, count, resolve })
        wake()
      })
    },
    async stop() {
      stopping = true
      await closeNow(server, hanging)
    },
  }
}

/**
 * A big-N answer: N `x`s of content, as one JSON completion or as chunks,
 * each piece written once the socket has taken the last, and no more once
 * the client has left.
 */
async function sendBig(res: ServerResponse, model: string, size: number, streamed: boolean): Promise<void> {
  const piece = (n: number) => 'x'.repeat(n)
  if (streamed) {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
    const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
      chunkEvent(model, delta, finishReason)
    if (!(await write(res, chunk({ role: 'assistant', content: '' }, null)))) return
    for (let sent = 0; sent < size; sent += BIG_PIECE) {
      if (!(await write(res, chunk({ content: piece(Math.min(BIG_PIECE, size - sent)) }, null)))) return
    }
    if (!(await write(res, chunk({}, 'stop') + 'data: [DONE]\n\n'))) return
    res.end()
    return
  }
  const [head, tail] = JSON.stringify(completion(model, '\u0000')).split('\\u0000') as [string, string]
  res.writeHead(200, { 'Content-Type': 'application/json' })
  if (!(await write(res, head))) return
  for (let sent = 0; sent < size; sent += BIG_PIECE) {
    if (!(await write(res, piece(Math.min(BIG_PIECE, size - sent))))) return
  }
  res.end(tail)
}

function completion(
  model: string,
  content: string | null,
  toolCalls: ScriptedToolCall[] = [],
  finishReason = 'stop',
  usage: Usage = USAGE,
) {
  const message = {
    role: 'assistant',
    content,
    ...(toolCalls.length > 0
      ? { tool_calls: toolCalls.map(({ id, name, arguments: args }) => toolCall(id, name, args)) }
      : {}),
  }
  return {
    id: COMPLETION_ID,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
    usage,
    system_fingerprint: SYSTEM_FINGERPRINT,
  }
}

function toolCall(id: string, name: string, args: string) {
  return { id, type: 'function', function: { name, arguments: args } }
}

/**
 * A tool call's arguments as streamed: in two pieces split at the middle code
 * point, so a client must join pieces that are no JSON on their own.
 */
function pieces(args: string): string[] {
  const points = Array.from(args)
  if (points.length < 2) return points.length === 0 ? [] : [args]
  const middle = points.length >> 1
  return [points.slice(0, middle).join(''), points.slice(middle).join('')]
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((part: unknown) => {
      const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown }
      return type === 'text' && typeof text === 'string' ? text : ''
    })
    .join('')
}

/** One `chat.completion.chunk` event of `model`, carrying `delta`. */
function chunkEvent(
  model: string,
  delta: Record<string, unknown>,
  finishReason: string | null,
  extra: Record<string, unknown> = {},
): string {
  return sse({
    id: COMPLETION_ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  })
}

/**
 * A stream's events: a chunk per delta, one with the finish reason, the usage chunk when
 * `stream_options.include_usage` asks for it (every chunk then carries `usage: null`), then [DONE].
 */
function streamEvents(
  model: string,
  deltas: Record<string, unknown>[],
  finishReason: string,
  usage: Usage,
  body: Record<string, unknown>,
): string[] {
  const options = body.stream_options as { include_usage?: unknown } | undefined
  const includeUsage = options?.include_usage === true
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    chunkEvent(model, delta, finish, includeUsage ? { usage: null } : {})
  const events = [...deltas.map((delta) => chunk(delta, null)), chunk({}, finishReason)]
  if (includeUsage) {
    events.push(
      sse({ id: COMPLETION_ID, object: 'chat.completion.chunk', created: CREATED, model, choices: [], usage }),
    )
  }
  events.push('data: [DONE]\n\n')
  return events
}

/** The head of an event stream, then each event; true once all are handed to the socket, false if the client left. */
async function sendEvents(res: ServerResponse, events: string[]): Promise<boolean> {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' })
  res.flushHeaders()
  for (const event of events) {
    // Each chunk on its own: handed to the socket, then a turn of the event loop.
    if (!(await write(res, event))) return false
    await new Promise((resolve) => setImmediate(resolve))
  }
  return true
}

function sse(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`
}

/** Writes text; true once it is handed to the socket, false if the response closed first. */
function write(res: ServerResponse, text: string): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false)
  return new Promise((resolve) => {
    const closed = () => resolve(false)
    res.once('close', closed)
    res.write(text, (error) => {
      res.off('close', closed)
      resolve(!error && !res.destroyed)
    })
  })
}

/** The parsed JSON object body. */
async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    throw new Error(`the request body is not JSON: ${messageOf(error)}`)
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new Error('the request body must be a JSON object')
  }
  return body as Record<string, unknown>
}

/** An error in OpenAI's shape; `code` only when given. */
function sendError(res: ServerResponse, status: number, message: string, type: string, code?: string): void {
  send(res, status, { error: { message, type, ...(code === undefined ? {} : { code }) } })
}

const ANSWER_FIELDS = ['content', 'tool_calls', 'finish_reason', 'usage', 'hang', 'status', 'error']
/** The fields of an answer that is a completion, which one that hangs or fails cannot have. */
const COMPLETION_FIELDS = ['content', 'tool_calls', 'finish_reason', 'usage']
const TOOL_CALL_FIELDS = ['id', 'name', 'arguments']
const USAGE_FIELDS = ['prompt_tokens', 'completion_tokens', 'total_tokens']

/** A `/__script` body, checked field by field: a typo must not pass for a default. */
function parseScript(body: Record<string, unknown>): Script {
  onlyFields(body, ['answers', 'repeat_last'], 'the body')
  const { answers, repeat_last: repeatLast = false } = body
  if (!Array.isArray(answers) || answers.length === 0) throw new Error('answers must be a non-empty array')
  if (typeof repeatLast !== 'boolean') throw new Error('repeat_last must be a boolean')
  return { answers: answers.map((answer: unknown, i) => parseAnswer(answer, `answers[${i}]`)), repeatLast }
}

function parseAnswer(answer: unknown, at: string): ScriptedAnswer {
  const fields = objectAt(answer, at)
  onlyFields(fields, ANSWER_FIELDS, at)
  const { content, tool_calls: toolCalls, finish_reason: finishReason, usage, hang, status, error } = fields
  if (content !== undefined && content !== null && typeof content !== 'string') {
    throw new Error(`${at}.content must be a string or null`)
  }
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls) || toolCalls.length === 0) {
      throw new Error(`${at}.tool_calls must be a non-empty array`)
    }
    toolCalls.forEach((call: unknown, j) => {
      const callFields = objectAt(call, `${at}.tool_calls[${j}]`)
      onlyFields(callFields, TOOL_CALL_FIELDS, `${at}.tool_calls[${j}]`)
      for (const field of TOOL_CALL_FIELDS) {
        if (typeof callFields[field] !== 'string') throw new Error(`${at}.tool_calls[${j}].${field} must be a string`)
      }
    })
  }
  if (finishReason !== undefined && typeof finishReason !== 'string') {
    throw new Error(`${at}.finish_reason must be a string`)
  }
  if (usage !== undefined) {
    const usageFields = objectAt(usage, `${at}.usage`)
    onlyFields(usageFields, USAGE_FIELDS, `${at}.usage`)
    for (const field of USAGE_FIELDS) {
      const count = usageFields[field]
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
        throw new Error(`${at}.usage.${field} must be a non-negative integer`)
      }
    }
  }
  if (hang !== undefined && hang !== true) throw new Error(`${at}.hang must be true when given`)
  if (
    status !== undefined &&
    (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)
  ) {
    throw new Error(`${at}.status must be an error status, 400 to 599`)
  }
  if (error !== undefined && typeof error !== 'string') throw new Error(`${at}.error must be a string`)
  if (error !== undefined && status === undefined)
    throw new Error(`${at}.error is the message of a status, and there is none`)
  if (hang && status !== undefined) throw new Error(`${at} cannot both hang and answer a status`)
  const given = COMPLETION_FIELDS.filter((field) => fields[field] !== undefined)
  if ((hang || status !== undefined) && given.length > 0) {
    throw new Error(`${at} ${hang ? 'hangs' : 'answers a status'}, so it cannot have ${given.join(', ')}`)
  }
  return fields as ScriptedAnswer
}

function objectAt(value: unknown, at: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${at} must be an object`)
  return value as Record<string, unknown>
}

function onlyFields(value: Record<string, unknown>, fields: string[], at: string): void {
  const unknown = Object.keys(value).filter((key) => !fields.includes(key))
  if (unknown.length > 0) throw new Error(`${at} has unknown fields ${unknown.join(', ')}; known: ${fields.join(', ')}`)
}
