// The rules a chat's conversation keeps (lib/chat/messages.ts), checked before anything is sent.
import { describe, expect, it } from 'vitest'
import { checkConversation } from '../../lib/chat/messages'
import type { ChatMessage } from '../../lib/llm'
import { ServiceError } from '../../lib/errors'

const rendered: ChatMessage[] = [
  { role: 'system', content: 'You review code.' },
  { role: 'user', content: 'Review x := 1' },
]
const call = (id: string, name = 'codebase_lookup_ref') => ({
  id,
  type: 'function' as const,
  function: { name, arguments: '{"symbol":"x"}' },
})

/** The error checkConversation throws, as the answer carries it; undefined when the conversation is fine. */
function violation(given: ChatMessage[], continueLast = false, prompt = rendered) {
  try {
    checkConversation(prompt, given, continueLast)
    return undefined
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e
    return { code: e.code, message: e.message, ...e.extra }
  }
}

describe('a conversation', () => {
  it('may continue with the model, tools and the caller in turn', () => {
    expect(
      violation([
        { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
        { role: 'tool', tool_call_id: 'b', content: '{"refs": []}' },
        { role: 'tool', tool_call_id: 'a', content: 'error: timed out' },
        { role: 'assistant', content: 'It is unused.' },
        { role: 'user', content: [{ type: 'text', text: 'And y?' }], name: 'ana' },
      ]),
    ).toBeUndefined()
    expect(violation([])).toBeUndefined()
  })

  it('needs a tool message to answer a call of the assistant message just before it', () => {
    expect(violation([{ role: 'tool', tool_call_id: 'a', content: 'x' }])).toEqual({
      code: 'INVALID_MESSAGES',
      index: 0,
      rule: 'tool-answers-call',
      message:
        "messages[0] answers tool call 'a', which the assistant message before it did not make (tool-answers-call)",
    })
    expect(
      violation([
        { role: 'assistant', content: null, tool_calls: [call('a')] },
        { role: 'tool', tool_call_id: 'a', content: 'x' },
        { role: 'tool', tool_call_id: 'a', content: 'y' },
      ]),
    ).toMatchObject({ index: 2, rule: 'tool-answers-call', message: expect.stringContaining('a second time') })
    // A user message in between closes the assistant's calls: a later tool message answers nothing.
    expect(
      violation([
        { role: 'assistant', content: 'Hm.' },
        { role: 'user', content: 'go on' },
        { role: 'tool', tool_call_id: 'a', content: 'x' },
      ]),
    ).toMatchObject({ index: 2, rule: 'tool-answers-call' })
    expect(violation([{ role: 'tool', content: 'x' }])).toMatchObject({ index: 0, rule: 'tool-answers-call' })
  })

  it('needs every call answered before the next other message, and before the end', () => {
    expect(
      violation([
        { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
        { role: 'tool', tool_call_id: 'a', content: 'x' },
        { role: 'user', content: 'well?' },
      ]),
    ).toEqual({
      code: 'INVALID_MESSAGES',
      index: 0,
      rule: 'calls-answered',
      message: "messages[0] has tool call 'b', which no tool message answers before messages[2] (calls-answered)",
    })
    expect(violation([{ role: 'assistant', content: null, tool_calls: [call('a')] }], true)).toMatchObject({
      index: 0,
      rule: 'calls-answered',
      message: expect.stringContaining('before the conversation ends'),
    })
    expect(violation([{ role: 'assistant', content: null, tool_calls: [call('a'), call('a')] }])).toMatchObject({
      index: 0,
      rule: 'tool-answers-call',
      message: expect.stringContaining("two tool calls with id 'a'"),
    })
  })

  it('keeps system and developer messages before the first user message', () => {
    expect(violation([{ role: 'developer', content: 'Be terse.' }])).toEqual({
      code: 'INVALID_MESSAGES',
      index: 0,
      rule: 'system-first',
      message: 'messages[0] is a developer message after a user message: instructions come first (system-first)',
    })
    // Before any user message, the caller's own instructions are fine.
    const onlySystem: ChatMessage[] = [{ role: 'system', content: 'You review code.' }]
    expect(
      violation(
        [
          { role: 'developer', content: 'Be terse.' },
          { role: 'user', content: 'x' },
        ],
        false,
        onlySystem,
      ),
    ).toBeUndefined()
    // The rendered part is its author's: its own order is not judged.
    expect(
      violation([], false, [
        { role: 'user', content: 'x' },
        { role: 'system', content: 'y' },
      ]),
    ).toBeUndefined()
  })

  it('ends with an assistant message only when the caller asks to continue it', () => {
    const prefill: ChatMessage[] = [{ role: 'assistant', content: '{"score":' }]
    expect(violation(prefill)).toMatchObject({ index: 0, rule: 'ends-with-assistant' })
    expect(violation(prefill, true)).toBeUndefined()
    // A prompt whose own template ends with the assistant's turn is its author's choice.
    expect(violation([], false, [...rendered, { role: 'assistant', content: 'Sure:' }])).toBeUndefined()
  })

  it('needs content, but from an assistant message that calls tools', () => {
    expect(violation([{ role: 'assistant', content: null }], true)).toMatchObject({
      index: 0,
      rule: 'content-required',
      message: 'messages[0] has no content and no tool calls (content-required)',
    })
    expect(violation([{ role: 'user', content: [] }])).toMatchObject({ index: 0, rule: 'content-required' })
    expect(
      violation([
        { role: 'assistant', tool_calls: [call('a')] },
        { role: 'tool', tool_call_id: 'a' },
      ]),
    ).toMatchObject({ index: 1, rule: 'content-required' })
  })
})
