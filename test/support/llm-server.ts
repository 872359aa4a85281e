// A local LLM provider for tests, speaking three wire formats on one port with
// the same behaviours in each, so that one table of scenarios runs against all:
//
//   POST /v1/chat/completions                                 OpenAI's Chat Completions (llm-wire/openai.ts)
//   POST /v1/messages                                         Anthropic's Messages, as of anthropic-version
//                                                             2023-06-01 (llm-wire/anthropic.ts): a request without
//                                                             the anthropic-version header or max_tokens is refused
//                                                             (400 invalid_request_error)
//   POST /v1beta/models/{model}:generateContent               Gemini's (llm-wire/gemini.ts), the model in the path,
//   POST /v1beta/models/{model}:streamGenerateContent?alt=sse percent-encoded as need be; the stream only with alt=sse
//
// What it does is read from the request's model (the body's `model`; Gemini's
// path), so tests need no setup calls:
//
//   ok (and any model not below)  200 answer, its text `echo: <the last message's text>` (OpenAI's and Anthropic's
//                                 text parts and blocks joined, Anthropic's tool results' content, Gemini's text
//                                 parts and function responses' JSON); streamed when asked (OpenAI's and
//                                 Anthropic's `"stream": true`, Gemini's streamGenerateContent), word by word
//   fail-N                        the first N requests of that exact model string answer 500, later ones like ok
//   rate-limited-N                the same with 429
//   overloaded-N                  the same with 503 (Anthropic's own 529 overloaded_error)
//   timeout-N                     the same, but the failing requests hang until the client leaves or the server stops
//   garbage-N                     the same, but the failing requests answer 200 `{"unexpected": true}`
//   malformed-N                   the same, but the failing requests answer 200 with JSON cut short
//   missing-model                 404 (OpenAI's model_not_found, Anthropic's not_found_error, Google's NOT_FOUND)
//   bad-request                   400 (invalid_request_error, Google's INVALID_ARGUMENT)
//   no-stream-options             the same 400 naming stream_options when the request has them, else as `ok`
//   stream-cut                    streams through the first word (OpenAI's role chunk and first word; Anthropic's
//                                 message_start, content_block_start, ping and first text_delta; Gemini's first
//                                 event), but never the stream's last event, then destroys the socket: no [DONE],
//                                 message_stop or finishReason; without a stream, half of the JSON answer, then the same
//   stream-stall                  streams one event (OpenAI's role chunk, Anthropic's message_start, Gemini's first
//                                 word), then silence until the client leaves or the server stops; without a stream,
//                                 the headers and half of the JSON answer, then the same
//   reject-big-N                  400 whose error body is N bytes, written lazily and stopped when the client leaves
//   reject-stall                  400 with the start of an error body, then silence until the client leaves
//   big-N                         an answer whose text is N `x`s, written lazily without a Content-Length
//                                 (a piece whenever the client has taken the last) and stopped when the client
//                                 leaves; streamed, in pieces of 64 KiB of text each, to the stream's end
//
// Errors come in each format's shape, typed by status: OpenAI's
// `{"error": {"message", "type", "code"?}}`, Anthropic's
// `{"type": "error", "error": {"type", "message"}}`, Google's
// `{"error": {"code", "message", "status"}}`.
//
// A model can instead be scripted, whatever its name: `POST /__script?model=NAME`
// with `{ "answers": ScriptedAnswer[], "repeat_last"?: boolean }` has the Nth
// request of that exact model since then, in any format, take answers[N-1] (an
// answer, tool calls included, streamed when asked; a hang; or an error status,
// with a `Retry-After` header when `retry_after` says),
// and past the end the last answer again with `repeat_last`, else a 500
// `script exhausted: N answers scripted`. Setting a script forgets the model's
// records, so the count starts with it. Anthropic and Gemini carry a tool
// call's arguments as an object: a scripted call whose arguments are no JSON
// object answers those formats 500 saying so (but Anthropic's stream, whose
// input goes as text).
//
// Every request with a JSON body naming a model, in whatever format, is recorded
// under that model on arrival (`LlmRequestRecord`: its native body, and the
// headers its format's clients must send); one the format refuses is not.
// `GET /__requests?model=NAME` answers `{ requests: LlmRequestRecord[] }`;
// `POST /__reset?model=NAME` forgets the model's records and script and so
// restarts its fail/rate-limited/overloaded/timeout/garbage count;
// `GET /__idle?model=NAME` answers `LlmIdle` once no answer of the model is
// being written (an event to wait on, for a client that should have left).
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import { parseScript } from './llm-script'
import type { Script, ScriptedAnswer } from './llm-script'
import { anthropic } from './llm-wire/anthropic'
import { gemini } from './llm-wire/gemini'
import { openai } from './llm-wire/openai'
import { USAGE, echoWords } from './llm-wire/wire'
import type { Reply, StreamedReply, Trouble, Wire } from './llm-wire/wire'
import { closeNow, listenOnLoopback } from './ports'
import { messageOf, send } from './serving'

export { COMPLETION_ID, CREATED, SYSTEM_FINGERPRINT, echoText } from './llm-wire/openai'
export { MESSAGE_ID } from './llm-wire/anthropic'
export { RESPONSE_ID } from './llm-wire/gemini'
export { USAGE, echoWords } from './llm-wire/wire'
export type { ScriptedToolCall, Usage } from './llm-wire/wire'
export type { ScriptedAnswer } from './llm-script'

export interface LlmServer {
  /** OpenAI's base URL, including the version path, e.g. `http://127.0.0.1:40123/v1` (no trailing slash). */
  url: string
  /** The server's origin, e.g. `http://127.0.0.1:40123`: the base URL of Anthropic's and Gemini's clients. */
  origin: string
  /** Resolves once `count` requests of `model` have arrived (since its last reset). */
  arrived(model: string, count?: number): Promise<void>
  stop(): Promise<void>
}

/** One request as it arrived, in whichever format. */
export interface LlmRequestRecord {
  /** `performance.now()` of the server process when the request arrived, in ms. */
  at: number
  /** The parsed JSON body, as the format has it. */
  body: Record<string, unknown>
  /** The `authorization` header (`Bearer <key>`), or null when there was none. */
  authorization: string | null
  /** The names of every header the request carried, lower case, sorted. */
  headerNames: string[]
  /**
   * Anthropic's and Gemini's requests: the headers their clients must send (`x-api-key` and `anthropic-version`;
   * `x-goog-api-key`), each null when it was not.
   */
  headers?: Record<string, string | null>
}

export const FAIL_MESSAGE = 'upstream exploded'
export const RATE_LIMIT_MESSAGE = 'Rate limit reached: retry later'
export const OVERLOADED_MESSAGE = 'Overloaded: retry later'
export const NO_STREAM_OPTIONS_MESSAGE = 'Unrecognized request argument supplied: stream_options'
export const BAD_REQUEST_MESSAGE = "Invalid request: the model 'bad-request' refuses every request"
export const GARBAGE = { unexpected: true } as const

/** What `/__idle` answers: how many answers of the model the client left before they were complete. */
export interface LlmIdle {
  cutShort: number
}

/** A big-N answer's content comes in pieces of this many bytes. */
const BIG_PIECE = 64 * 1024
const BIG = /^big-(\d+)$/
const REJECT_BIG = /^reject-big-(\d+)$/

/** What a failing request of a `<kind>-N` model does. */
type Failure = 'fail' | 'rate-limited' | 'overloaded' | 'timeout' | 'garbage' | 'malformed'

const FAILING = /^(fail|rate-limited|overloaded|timeout|garbage|malformed)-([1-9]\d*)$/

const WIRES: readonly Wire[] = [openai, anthropic, gemini]

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

  /** A request to one of the formats' routes: recorded, then answered as its model says, in its format. */
  const answer = async (wire: Wire, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const at = performance.now()
    let body: Record<string, unknown>
    try {
      body = await readBody(req)
    } catch (error) {
      sendTrouble(res, wire, 'invalid', messageOf(error))
      return
    }
    const read = wire.read(url, req.headers, body)
    if ('refused' in read) {
      sendTrouble(res, wire, read.trouble ?? 'invalid', read.refused)
      return
    }
    const { model, streamed } = read
    const records = recordsOf(model)
    records.push(recordOf(wire, req, at, body))
    const nth = records.length
    wake()

    const script = scripts.get(model)
    if (script) {
      await answerScripted(wire, res, model, script, nth, streamed, body)
      return
    }
    const failing = FAILING.exec(model)
    if (failing && nth <= Number(failing[2])) {
      const kind = failing[1] as Failure
      if (kind === 'fail') sendTrouble(res, wire, 'failed', FAIL_MESSAGE)
      else if (kind === 'rate-limited') sendTrouble(res, wire, 'rate-limited', RATE_LIMIT_MESSAGE)
      else if (kind === 'overloaded') sendTrouble(res, wire, 'overloaded', OVERLOADED_MESSAGE)
      else if (kind === 'garbage') send(res, 200, GARBAGE)
      else if (kind === 'malformed') {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        res.end(wire.malformed)
      } else hang(res)
      return
    }
    if (model === 'missing-model') {
      sendTrouble(res, wire, 'missing-model', `The model \`${model}\` does not exist`)
      return
    }
    if (model === 'bad-request') {
      sendTrouble(res, wire, 'invalid', BAD_REQUEST_MESSAGE)
      return
    }
    if (model === 'no-stream-options' && body.stream_options !== undefined) {
      sendTrouble(res, wire, 'invalid', NO_STREAM_OPTIONS_MESSAGE)
      return
    }
    const rejectBig = REJECT_BIG.exec(model)
    if (rejectBig || model === 'reject-stall') {
      track(model, res)
      const [head, tail] = wire.rejected
      res.writeHead(400, { 'Content-Type': 'application/json' })
      if (!(await write(res, head))) return
      if (!rejectBig) return hang(res)
      for (let sent = 0, size = Number(rejectBig[1]); sent < size; sent += BIG_PIECE) {
        if (!(await write(res, 'x'.repeat(Math.min(BIG_PIECE, size - sent))))) return
      }
      res.end(tail)
      return
    }

    const big = BIG.exec(model)
    if (big) {
      track(model, res)
      await sendBig(res, wire, model, Number(big[1]), streamed)
      return
    }
    const text = wire.echo(body)
    if (streamed) {
      await stream(
        res,
        wire,
        model,
        { pieces: echoWords(text), toolCalls: [], finishReason: 'stop', usage: USAGE },
        body,
      )
      return
    }
    const json = JSON.stringify(
      wire.answer(model, { content: text, toolCalls: [], finishReason: 'stop', usage: USAGE }),
    )
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

  const stream = async (
    res: ServerResponse,
    wire: Wire,
    model: string,
    reply: StreamedReply,
    body: Record<string, unknown>,
  ): Promise<void> => {
    if (model !== 'stream-cut' && model !== 'stream-stall') {
      if (await sendEvents(res, wire.events(model, reply, body))) res.end()
      return
    }
    const events = Array.from(wire.events(model, reply, body))
    // Never the last event, whatever the text: a stream cut short must not look whole.
    const limit = Math.min(model === 'stream-cut' ? wire.cutAfter : wire.stallAfter, events.length - 1)
    if (!(await sendEvents(res, events.slice(0, limit)))) return
    if (model === 'stream-cut') res.destroy()
    else hang(res)
  }

  const answerScripted = async (
    wire: Wire,
    res: ServerResponse,
    model: string,
    script: Script,
    nth: number,
    streamed: boolean,
    body: Record<string, unknown>,
  ): Promise<void> => {
    const { answers, repeatLast } = script
    const answer: ScriptedAnswer | undefined = answers[nth - 1] ?? (repeatLast ? answers.at(-1) : undefined)
    if (!answer) {
      sendTrouble(res, wire, 'failed', `script exhausted: ${answers.length} answers scripted`)
      return
    }
    if (answer.hang) {
      // Tracked, so that /__idle counts the client leaving it.
      track(model, res)
      return hang(res)
    }
    if (answer.status !== undefined) {
      const { status } = answer
      // The messages of the name-based errors of that status, as the type is theirs too.
      const message =
        answer.error ??
        (status === 429 ? RATE_LIMIT_MESSAGE : status >= 500 ? FAIL_MESSAGE : `the script answers ${status}`)
      if (answer.retry_after !== undefined) res.setHeader('Retry-After', answer.retry_after)
      sendTrouble(res, wire, status, message)
      return
    }
    const toolCalls = answer.tool_calls ?? []
    const content = answer.content !== undefined ? answer.content : toolCalls.length > 0 ? null : ''
    const finishReason = answer.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop')
    const usage = answer.usage ?? USAGE
    if (!streamed) {
      send(res, 200, wire.answer(model, { content, toolCalls, finishReason, usage }))
      return
    }
    const pieces = content === null ? null : content === '' ? [] : echoWords(content)
    if (await sendEvents(res, wire.events(model, { pieces, toolCalls, finishReason, usage }, body))) res.end()
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://llm-server')
    // Errors are told in the route's format, or else in the format whose paths look alike.
    const wire =
      WIRES.find((w) => w.serves(url.pathname)) ??
      (url.pathname.startsWith('/v1beta/') ? gemini : url.pathname.startsWith('/v1/messages') ? anthropic : openai)
    let handled: Promise<void>
    if (url.pathname.startsWith('/__')) {
      handled = admin(req, url).then(([status, payload]) => send(res, status, payload))
    } else if (!wire.serves(url.pathname)) {
      handled = Promise.resolve(sendTrouble(res, wire, 'no-route', `no route ${req.method} ${url.pathname}`))
    } else if (req.method !== 'POST') {
      handled = Promise.resolve(sendTrouble(res, wire, 'no-method', `${req.method} is not allowed here`))
    } else {
      handled = answer(wire, req, res, url)
    }
    handled.catch((error: unknown) => {
      // Also what a format answers a reply it cannot carry (a scripted call's arguments that are no object).
      if (!res.headersSent) sendTrouble(res, wire, 'failed', messageOf(error))
      else res.destroy()
    })
  })
  const port = await listenOnLoopback(server)
  const origin = `http://127.0.0.1:${port}`

  return {
    url: `${origin}/v1`,
    origin,
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

function recordOf(wire: Wire, req: IncomingMessage, at: number, body: Record<string, unknown>): LlmRequestRecord {
  const headerNames = Object.keys(req.headers).sort()
  const record: LlmRequestRecord = { at, body, authorization: req.headers.authorization ?? null, headerNames }
  if (wire.headers.length > 0) {
    record.headers = Object.fromEntries(
      wire.headers.map((name) => {
        const value = req.headers[name]
        return [name, Array.isArray(value) ? value.join(', ') : (value ?? null)]
      }),
    )
  }
  return record
}

function sendTrouble(res: ServerResponse, wire: Wire, trouble: Trouble, message: string): void {
  const [status, body] = wire.error(trouble, message)
  send(res, status, body)
}

/**
 * A big-N answer: N `x`s of text, as one JSON answer or as a stream, each
 * piece written once the socket has taken the last, and no more once the
 * client has left.
 */
async function sendBig(res: ServerResponse, wire: Wire, model: string, size: number, streamed: boolean) {
  const reply: Omit<Reply, 'content'> = { toolCalls: [], finishReason: 'stop', usage: USAGE }
  if (streamed) {
    // No stream options: big-N is about size, so OpenAI's carries no usage chunk whatever the request asks.
    if (await sendEvents(res, wire.events(model, { ...reply, pieces: bigPieces(size) }, {}))) res.end()
    return
  }
  const [head, tail] = JSON.stringify(wire.answer(model, { ...reply, content: '\u0000' })).split('\\u0000') as [
    string,
    string,
  ]
  res.writeHead(200, { 'Content-Type': 'application/json' })
  if (!(await write(res, head))) return
  for (let sent = 0; sent < size; sent += BIG_PIECE) {
    if (!(await write(res, 'x'.repeat(Math.min(BIG_PIECE, size - sent))))) return
  }
  res.end(tail)
}

function* bigPieces(size: number): Generator<string> {
  for (let sent = 0; sent < size; sent += BIG_PIECE) yield 'x'.repeat(Math.min(BIG_PIECE, size - sent))
}

/** The head of an event stream, then each event; true once all are handed to the socket, false if the client left. */
async function sendEvents(res: ServerResponse, events: Iterable<string>): Promise<boolean> {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' })
  res.flushHeaders()
  for (const event of events) {
    // Each event on its own: handed to the socket, then a turn of the event loop.
    if (!(await write(res, event))) return false
    await new Promise((resolve) => setImmediate(resolve))
  }
  return true
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
