// Google's Gemini API, v1beta: POST /v1beta/models/{model}:generateContent and
// :streamGenerateContent?alt=sse, the model in the path (percent-encoded as
// need be). Answers as GenerateContentResponse objects (candidates of parts),
// streams as `data: <GenerateContentResponse>` events with no end marker (the
// HTTP stream ends), errors as `{"error": {"code", "message", "status"}}`.
import { argumentsObject, hasText, statusOf, textOf } from './wire'
import type { Reply, StreamedReply, Usage, Wire } from './wire'

export const RESPONSE_ID = 'resp-test'

/** The path of both methods: the model (any characters but `/`, so encoded colons too), then the method. */
const ROUTE = /^\/v1beta\/models\/([^/]+):(generateContent|streamGenerateContent)$/

/** Gemini's finish reasons for OpenAI's; any other goes out as it is (a script's `RECITATION`). */
const FINISH_REASONS: Record<string, string> = {
  stop: 'STOP',
  // Gemini stops with STOP when it calls functions too.
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
}

/** Google's canonical status of each HTTP status; other 4XX are invalid arguments, other 5XX internal errors. */
const STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
}

type Part = Record<string, unknown>

export const gemini: Wire = {
  serves: (pathname) => ROUTE.test(pathname),
  read(url) {
    const [, encoded = '', method] = ROUTE.exec(url.pathname) ?? []
    let model: string
    try {
      model = decodeURIComponent(encoded)
    } catch {
      return { refused: `the model in the path is not percent-encoded right: ${encoded}` }
    }
    const streamed = method === 'streamGenerateContent'
    // Without alt=sse Google streams one JSON array, a framing this server does not speak: better refused than faked.
    if (streamed && url.searchParams.get('alt') !== 'sse') {
      return { refused: 'this server streams only as server-sent events: ask with ?alt=sse' }
    }
    return { model, streamed }
  },
  headers: ['x-goog-api-key'],
  echo(body) {
    const contents = Array.isArray(body.contents) ? (body.contents as unknown[]) : []
    const last = contents.at(-1) as { parts?: unknown } | undefined
    return `echo: ${textOf(last?.parts, partText)}`
  },
  error(trouble, message) {
    const status = statusOf(trouble)
    const name = STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT')
    return [status, { error: { code: status, message, status: name } }]
  },
  answer(model, reply) {
    const parts: Part[] = hasText(reply.content, reply.toolCalls) ? [{ text: reply.content ?? '' }] : []
    parts.push(...functionCalls(reply))
    return response(model, parts, finishReason(reply.finishReason), reply.usage)
  },
  events(model, reply) {
    // The calls' args are objects here: made (and refused) before the first event.
    return streamEvents(model, reply, functionCalls(reply))
  },
  // The first word.
  cutAfter: 1,
  stallAfter: 1,
  malformed: '{"candidates": [',
  rejected: ['{"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "', '"}}'],
}

/** The text a part of a request's content carries: a text part's, or a function response's JSON. */
function partText(part: Part): string {
  if (typeof part.text === 'string') return part.text
  const response = part.functionResponse as { response?: unknown } | undefined
  return response !== null && typeof response === 'object' ? (JSON.stringify(response.response) ?? '') : ''
}

function functionCalls(reply: Pick<Reply, 'toolCalls'>): Part[] {
  return reply.toolCalls.map((call) => ({
    functionCall: { id: call.id, name: call.name, args: argumentsObject(call, 'a functionCall') },
  }))
}

function finishReason(reason: string): string {
  return FINISH_REASONS[reason] ?? reason
}

function usageMetadata(usage: Usage) {
  return {
    promptTokenCount: usage.prompt_tokens,
    candidatesTokenCount: usage.completion_tokens,
    totalTokenCount: usage.total_tokens,
  }
}

/** A GenerateContentResponse; the finish reason and usage only on an answer's last (or only) one. */
function response(model: string, parts: Part[], finish: string | null, usage: Usage | null) {
  return {
    candidates: [{ content: { parts, role: 'model' }, ...(finish === null ? {} : { finishReason: finish }), index: 0 }],
    ...(usage === null ? {} : { usageMetadata: usageMetadata(usage) }),
    modelVersion: model,
    responseId: RESPONSE_ID,
  }
}

/**
 * A stream as Gemini sends one: a response per part (the text word by word, each function call whole), the last
 * carrying the finish reason and the usage, each event ended by a blank line in CRLFs as Google's are.
 */
function* streamEvents(model: string, reply: StreamedReply, calls: Part[]): Generator<string> {
  const sse = (payload: unknown) => `data: ${JSON.stringify(payload)}\r\n\r\n`
  function* parts(): Generator<Part> {
    for (const piece of reply.pieces ?? []) yield { text: piece }
    yield* calls
  }
  // Each part waits for the next, so that the last is known as it goes out.
  let previous: Part | undefined
  for (const part of parts()) {
    if (previous) yield sse(response(model, [previous], null, null))
    previous = part
  }
  yield sse(response(model, [previous ?? { text: '' }], finishReason(reply.finishReason), reply.usage))
}
