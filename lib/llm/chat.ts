import type OpenAI from 'openai'
import { InvalidAnswer, withRetries } from './retry'

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string }

/** The request to the provider: the rendered messages and the caller's OpenAI parameters. Never the args. */
export type ChatRequest = { model: string; messages: ChatMessage[] } & Record<string, unknown>

/**
 * A chat completion, under the retry policy. The answer is the provider's
 * body exactly as it came (its text), once it is seen to be a chat completion.
 */
export async function complete(client: OpenAI, request: ChatRequest): Promise<string> {
  return withRetries(async () => {
    const response = await client.chat.completions.create({ ...request, stream: false } as never).asResponse()
    const text = await response.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new InvalidAnswer('answered 200 with a body that is not JSON')
    }
    if (!isChatCompletion(body)) throw new InvalidAnswer('answered 200 with a body that is not a chat completion')
    return text
  })
}

function isChatCompletion(body: unknown): boolean {
  const b = body as { object?: unknown; choices?: unknown } | null
  return typeof b === 'object' && b !== null && Array.isArray(b.choices) && b.choices.length > 0
}

/**
 * A streamed chat: the provider's server-sent events, forwarded as they
 * arrive. Retries apply until the first chunk is in hand; after it, a
 * failure, or a gap between chunks longer than `gapMs`, ends the stream with
 * an `error` event and no `[DONE]`, never a silent clean end.
 */
export async function stream(client: OpenAI, request: ChatRequest, gapMs: number): Promise<ReadableStream<Uint8Array>> {
  const { reader, first } = await withRetries(async () => {
    const response = await client.chat.completions.create({ ...request, stream: true } as never).asResponse()
    if (!response.body) throw new InvalidAnswer('answered 200 with no body')
    const reader = response.body.getReader()
    const first = await within(reader.read(), gapMs)
    if (first.done) throw new InvalidAnswer('answered with an empty stream')
    return { reader, first: first.value }
  })
  const decoder = new TextDecoder()
  let tail = ''
  let done = false
  const sawDone = (chunk: Uint8Array) => {
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-64)
    if (/data: \[DONE\]\s*$/.test(tail)) done = true
  }
  sawDone(first)
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first)
    },
    async pull(controller) {
      try {
        const next = await within(reader.read(), gapMs)
        if (next.done) {
          if (done) controller.close()
          else fail(controller, 'the provider ended the stream before [DONE]')
          return
        }
        sawDone(next.value)
        controller.enqueue(next.value)
      } catch (e) {
        fail(controller, e instanceof Error ? e.message : String(e))
        await reader.cancel().catch(() => undefined)
      }
    },
    async cancel() {
      await reader.cancel().catch(() => undefined)
    },
  })
}

function fail(controller: ReadableStreamDefaultController<Uint8Array>, message: string): void {
  const event = { error: { code: 'LLM_FAILED', message } }
  controller.enqueue(new TextEncoder().encode(`event: error\ndata: ${JSON.stringify(event)}\n\n`))
  controller.close()
}

/** A read that must arrive within `ms`. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DOMException(`no chunk within ${ms} ms`, 'TimeoutError')), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}
