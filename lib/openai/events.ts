import type { ByteLimit } from '../egress'
import { ServiceError } from '../errors'
import { isObject } from '../json'
import { RoundReader, readableOf } from '../chat'
import { log } from '../log'
import { redact } from '../redact'
import { addUsage, functionCallItem, messageItem, newId, outputText, responseObject, usageOf } from './response'
import type { ChatUsage } from './response'
import { chatEvents, dataOf, isDone } from './sse'

/**
 * A chat's event stream (the chat layer's: OpenAI chunks, with `event:
 * step` after each tool round) as Responses events: response.created and
 * in_progress, the text as response.output_text.delta as it comes in one
 * `message` item, each call of the caller's tools as a `function_call`
 * item, then response.completed with the usage of every step summed. A
 * failure ends it with an `error` event and no response.completed.
 */
export function responseEvents(
  chat: ReadableStream<Uint8Array>,
  model: string,
  callers: ReadonlySet<string>,
  limit: ByteLimit,
): ReadableStream<Uint8Array> {
  return readableOf(events(chat, model, callers, limit))
}

async function* events(
  chat: ReadableStream<Uint8Array>,
  model: string,
  callers: ReadonlySet<string>,
  limit: ByteLimit,
): AsyncGenerator<string> {
  let sequence = 0
  const send = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`
  const id = newId('resp')
  const started = responseObject(id, model, [], undefined, 'in_progress')
  yield send('response.created', { response: started })
  yield send('response.in_progress', { response: started })
  const itemId = newId('msg')
  const at = { item_id: itemId, output_index: 0, content_index: 0 }
  let opened = false
  let text = ''
  let usage: ChatUsage | undefined
  const round = new RoundReader()
  function* open() {
    if (opened) return
    opened = true
    yield send('response.output_item.added', { output_index: 0, item: messageItem(itemId, '', 'in_progress') })
    yield send('response.content_part.added', { ...at, part: outputText('') })
  }
  for await (const event of chatEvents(chat, limit)) {
    if (event instanceof ServiceError) return yield failed(send, event.code, event.message)
    const data = dataOf(event)
    if (event.name === 'error') {
      const error = isObject(data?.error) ? data.error : {}
      return yield failed(send, String(error.code ?? 'LLM_FAILED'), String(error.message ?? 'the chat failed'), false)
    }
    if (event.name === 'step') {
      const step = isObject(data?.step) ? data.step : {}
      if (step.usage) usage = sum(usage, usageOf(step.usage))
      continue
    }
    if (event.name !== undefined && event.name !== 'message') continue
    if (isDone(event)) break
    if (data?.usage) usage = sum(usage, usageOf(data.usage))
    const choice: unknown = Array.isArray(data?.choices) ? data.choices[0] : undefined
    const delta = isObject(choice) && isObject(choice.delta) ? choice.delta : {}
    round.take(event)
    if (typeof delta.content === 'string' && delta.content !== '') {
      yield* open()
      text += delta.content
      yield send('response.output_text.delta', { ...at, delta: delta.content, logprobs: [] })
    }
  }
  const theirs = (round.message().tool_calls ?? []).filter((call) => callers.has(call.function.name))
  const output: unknown[] = []
  if (opened || theirs.length === 0) {
    yield* open()
    const item = messageItem(itemId, text, 'completed')
    yield send('response.output_text.done', { ...at, text, logprobs: [] })
    yield send('response.content_part.done', { ...at, part: outputText(text) })
    yield send('response.output_item.done', { output_index: 0, item })
    output.push(item)
  }
  for (const call of theirs) {
    const item = functionCallItem(call)
    const index = output.length
    yield send('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress' } })
    yield send('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: index,
      name: item.name,
      arguments: item.arguments,
    })
    yield send('response.output_item.done', { output_index: index, item })
    output.push(item)
  }
  yield send('response.completed', { response: responseObject(id, model, output, usage, 'completed') })
}

function sum(a: ChatUsage | undefined, b: ChatUsage): ChatUsage {
  return a ? addUsage(a, b) : b
}

/**
 * The `error` event that ends a stream. A failure of the read is logged
 * here (the request's line went out with the 200); one the chat layer
 * reported was logged there.
 */
function failed(
  send: (type: string, fields: Record<string, unknown>) => string,
  code: string,
  message: string,
  logIt = true,
): string {
  if (logIt) log.warn('responses stream ended with an error', { code, reason: message })
  return send('error', { code, message: redact(message), param: null })
}
