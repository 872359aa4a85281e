/**
 * The `judge` answer assertion: a rubric and a model's answer sent to a
 * judge model, which answers a JSON verdict. The judge's prompt is
 * JUDGE_INSTRUCTIONS (docs/prompt-tests.md quotes it); a verdict that is
 * not that JSON is LLM_INVALID_OUTPUT, never a guessed pass or fail.
 */
import { ServiceError } from '../errors'
import { isObject } from '../json'
import { clientFor, complete } from '../llm'
import type { ChatMessage } from '../llm'
import type { Settings } from '../settings'
import { textOf } from '../chat/budget'

/** The judge's system message: what it is asked, and the one shape of answer read. */
export const JUDGE_INSTRUCTIONS =
  'You are a strict grader of an AI model\'s answer. You are given a rubric and an answer. Decide whether the answer meets every point of the rubric. Reply with only a JSON object, no other text: {"pass": true or false, "reason": "one sentence saying why"}.'

/** The verdict's JSON Schema, sent as `response_format` where the provider takes it (strict: every field required). */
const VERDICT_SCHEMA = {
  type: 'object',
  properties: { pass: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['pass', 'reason'],
  additionalProperties: false,
}

/** Characters of the judge's answer read at most: a verdict is a sentence, an essay is not a verdict. */
const MAX_VERDICT_CHARS = 4096

export interface Verdict {
  pass: boolean
  reason: string
}

/** The judge's user message: the rubric, then the answer, each fenced by a heading the instructions name. */
export function judgeRequest(rubric: string, answer: string): ChatMessage[] {
  return [
    { role: 'system', content: JUDGE_INSTRUCTIONS },
    { role: 'user', content: `Rubric:\n${rubric}\n\nAnswer:\n${answer}` },
  ]
}

/**
 * Asks `model` whether `answer` meets `rubric`, under CHAT_TIMEOUT_MS and
 * the provider's retry policy (lib/llm). Throws LLM_INVALID_OUTPUT when the
 * verdict cannot be read, CHAT_TIMEOUT or LLM_FAILED as a chat would.
 */
export async function judge(
  rubric: string,
  answer: string,
  model: string,
  settings: Pick<Settings, 'llm' | 'chat' | 'llmRoute'>,
): Promise<Verdict> {
  const ms = settings.chat.deadlineMs
  const deadline = new AbortController()
  const timer = setTimeout(
    () =>
      deadline.abort(new ServiceError('CHAT_TIMEOUT', `the judge did not answer within CHAT_TIMEOUT_MS (${ms} ms)`)),
    ms,
  )
  try {
    const client = clientFor(settings.llmRoute(model), settings.llm)
    const request = {
      model,
      messages: judgeRequest(rubric, answer),
      response_format: { type: 'json_schema', json_schema: { name: 'verdict', schema: VERDICT_SCHEMA, strict: true } },
    }
    const completion = await complete(client, request, settings.llm, { signal: deadline.signal, at: Date.now() + ms })
    return readVerdict(textOf(completion.choices[0]?.message.content ?? null), model)
  } finally {
    clearTimeout(timer)
  }
}

/** The verdict in the judge's text: the JSON object alone, or inside one Markdown code fence, as models wrap it. */
export function readVerdict(text: string, model: string): Verdict {
  const unreadable = (why: string) =>
    new ServiceError('LLM_INVALID_OUTPUT', `the judge model ${JSON.stringify(model)} answered ${why}`)
  if (text.length > MAX_VERDICT_CHARS) {
    throw unreadable(`${text.length} characters, more than a verdict (${MAX_VERDICT_CHARS} at most)`)
  }
  let value: unknown
  try {
    value = JSON.parse(unfenced(text.trim()))
  } catch {
    throw unreadable('something that is not JSON, where a verdict {"pass": boolean, "reason": string} was asked')
  }
  if (!isObject(value) || typeof value.pass !== 'boolean' || typeof value.reason !== 'string') {
    throw unreadable('JSON that is not a verdict {"pass": boolean, "reason": string}')
  }
  return { pass: value.pass, reason: value.reason }
}

/** `text` without one surrounding code fence (its opening line, ```` ``` ```` or ```` ```json ````, and its closing ```` ``` ````). */
function unfenced(text: string): string {
  const newline = text.indexOf('\n')
  if (newline < 0 || !text.startsWith('```') || !text.endsWith('```')) return text
  return text.slice(newline + 1, -3)
}
