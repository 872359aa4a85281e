import { abortable } from '../abort'
import { PieceReader, SseParser, TooLargeError, decodeText, guardedFetch, readBody, shortReason } from '../egress'
import type { ByteLimit, EgressPolicy } from '../egress'
import { describeError } from '../log'

/** The fetch a provider's requests go through: the `fetch` option of OpenAI's SDK, and what the native adapters call. */
export type ProviderFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** An error answer's bytes read at most: enough for the provider's message, never a flood. */
const ERROR_BODY: ByteLimit = { bytes: 64 * 1024, name: 'an error answer' }

/** Characters of a provider's words quoted at most: a message says what to fix, in a line. */
const MESSAGE_CHARS = 300

/**
 * Where a provider request may go: anywhere http(s) the configuration
 * (LLM_BASE_URL, LLM_ROUTES) names, for it is the allow-list of providers;
 * TOOL_ALLOWED_HOSTS is the records' and does not apply. guardedFetch still
 * checks every redirect, and keeps a POST (its messages, its key) within
 * the origin it was sent to.
 */
const PROVIDERS: EgressPolicy = { allowedHosts: undefined }

/** A failure worth another try: an answer that broke off, stalled, or is not what was asked for. */
export class Retryable extends Error {}

/**
 * What a provider said, as an error of ours may quote it: one clean line of
 * at most MESSAGE_CHARS characters, the service's secrets redacted (a
 * provider may echo the request's key).
 */
export function providerWords(text: string): string {
  return shortReason(text, MESSAGE_CHARS)
}

export interface ProviderFetchOptions {
  /** LLM_TIMEOUT_MS: between two chunks of a stream; for the whole of any other body. */
  timeoutMs: number
  /** LLM_MAX_BYTES: the bytes of an answer at most, a stream's in all. */
  maxBytes: number
  /** An event stream ends at `data: [DONE]` (OpenAI's), and ending before it is a failure. */
  untilDone: boolean
}

/**
 * fetch for a provider: guardedFetch (each redirect checked), with the
 * answer's body bounded as it is read: past `maxBytes` it fails with
 * TooLargeError; a stream's gap between chunks, or any other body's whole
 * reading, past `timeoutMs` fails with a TimeoutError; a read that breaks
 * off is Retryable. An error answer is read first, within 64 KiB and
 * `timeoutMs`, and handed on whole (one too big says so instead), so that
 * the SDK's reading of it is bounded too. The wait for the response headers
 * is the SDK's `timeout`; the request's signal (the SDK's, which a chat's
 * deadline aborts) ends all of it.
 */
export function providerFetch(options: ProviderFetchOptions): ProviderFetch {
  return async (input, init = {}) => {
    const signal = init.signal ?? new AbortController().signal
    const url = new URL(input instanceof Request ? input.url : input)
    const body = typeof init.body === 'string' ? init.body : undefined
    const method = init.method ?? 'POST'
    const response = await guardedFetch(url, { method, headers: new Headers(init.headers), body, signal }, PROVIDERS)
    if (!response.ok) return errorAnswer(response, options.timeoutMs, signal)
    const stream = /^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '')
    const headers = new Headers(response.headers)
    headers.delete('content-length')
    return new Response(bounded(response, options, stream, signal), { status: response.status, headers })
  }
}

/**
 * An error answer read whole within ERROR_BODY and `ms`, as a new answer of
 * the same status and headers; one that stalls is a TimeoutError (retried).
 */
async function errorAnswer(response: Response, ms: number, signal: AbortSignal): Promise<Response> {
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  headers.delete('content-encoding')
  let text: string
  try {
    text = decodeText(await readBody(response, ERROR_BODY, AbortSignal.any([signal, AbortSignal.timeout(ms)])))
  } catch (e) {
    if (signal.aborted || !(e instanceof TooLargeError)) throw timeoutOr(e, `no error answer within ${ms} ms`)
    text = 'an error answer too big to read'
  }
  return new Response(text, { status: response.status, statusText: response.statusText, headers })
}

/** A timeout of AbortSignal.timeout worded as ours; any other error as it is. */
function timeoutOr(e: unknown, message: string): unknown {
  return e instanceof DOMException && e.name === 'TimeoutError' ? new DOMException(message, 'TimeoutError') : e
}

/**
 * The answer's body as it is read, within the bounds of providerFetch. Read
 * in pieces (PieceReader), so that a provider sending tiny chunks without
 * pause still lets the timers (deadlines) fire. With `untilDone`, an event
 * stream is handed on one whole event at a time (SseParser, which bounds an
 * open event by LLM_MAX_BYTES): the SDK's parser copies what it holds of an
 * unfinished event with every chunk, quadratic in an event that never ends;
 * it ends at `data: [DONE]`, whatever the connection does next, and one
 * that ends before it fails.
 */
function bounded(
  response: Response,
  { timeoutMs, maxBytes, untilDone }: ProviderFetchOptions,
  stream: boolean,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const limit: ByteLimit = { bytes: maxBytes, name: 'LLM_MAX_BYTES' }
  const declared = response.headers.get('content-length')
  const reader = response.body?.getReader()
  const pieces = reader && new PieceReader(reader)
  const events = stream && untilDone ? new SseParser(limit) : undefined
  const encoder = new TextEncoder()
  const ends = Date.now() + timeoutMs
  let size = 0
  let ended = false
  const letGo = () => void reader?.cancel().catch(() => undefined)
  /** Hands on a piece, or the events it completes: whether it handed on any, and whether one was [DONE]. */
  const handOn = (controller: ReadableStreamDefaultController<Uint8Array>, piece: Uint8Array) => {
    if (!events) return (controller.enqueue(piece), { handed: true, over: false })
    let handed = false
    for (const event of events.push(piece)) {
      controller.enqueue(encoder.encode(event.raw))
      handed = true
      if (/^\s*\[DONE\]\s*$/.test(event.data)) return { handed, over: true }
    }
    return { handed, over: false }
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (declared !== null && Number(declared) > maxBytes) throw new TooLargeError(limit, Number(declared))
        if (!pieces) return controller.close()
        // Until something is handed on: a pull that enqueues nothing is not called again.
        for (let handed = false; !handed;) {
          // A stream's chunks come at the model's pace: the gap between two is bounded; anything else, its whole.
          const wait = stream ? timeoutMs : ends - Date.now()
          const what = stream
            ? `no chunk within ${timeoutMs} ms`
            : `the answer did not arrive whole within ${timeoutMs} ms`
          const next = ended ? { done: true as const } : await within(pieces.read(), wait, what, signal)
          if (next.done) {
            if (events) throw new Retryable('the provider ended the stream before [DONE]')
            return controller.close()
          }
          const { piece, done } = await pieces.gather(next.value)
          ended = done
          size += piece.byteLength
          if (size > maxBytes) throw new TooLargeError(limit)
          const said = handOn(controller, piece)
          if (said.over) return (letGo(), controller.close())
          handed = said.handed
        }
      } catch (e) {
        letGo()
        controller.error(brokeOff(e, signal))
      }
    },
    cancel() {
      letGo()
    },
  })
}

/** A read's failure: ours as it is; the network's (a connection lost) worth another try. */
function brokeOff(e: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || e instanceof TooLargeError || e instanceof Retryable) return e
  if (e instanceof DOMException && (e.name === 'TimeoutError' || e.name === 'AbortError')) return e
  return new Retryable(`the answer broke off: ${describeError(e)}`)
}

/** A read that must arrive within `ms`, and before `signal` aborts. */
function within<T>(p: Promise<T>, ms: number, message: string, signal: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DOMException(message, 'TimeoutError')), Math.max(0, ms))
  })
  return abortable(Promise.race([p, timeout]), signal).finally(() => clearTimeout(timer))
}
