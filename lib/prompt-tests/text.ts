import { clip } from '../errors'
import type { Rendered } from '../render'
import { CLIP_CHARS } from './types'
import type { Failure, TextAssertion } from './types'

/**
 * Checks a text against one of the text assertions (a rendered prompt's or a
 * model's answer): the failure, its texts clipped, or undefined when it
 * holds. A `matches` pattern was refused at write when its matching could
 * backtrack super-linearly (lib/catalog's regexHazard), so testing it is
 * linear in the text.
 */
export function checkText(assertion: TextAssertion, text: string): Failure | undefined {
  const failed = (expected: unknown, actual: unknown): Failure => ({
    assert: assertion.type,
    expected: clipped(expected),
    actual: clipped(actual),
  })
  switch (assertion.type) {
    case 'equals':
      return text === assertion.value ? undefined : failed(assertion.value, text)
    case 'contains':
      return text.includes(assertion.value) ? undefined : failed(assertion.value, text)
    case 'not-contains':
      return text.includes(assertion.value) ? failed(`no ${JSON.stringify(assertion.value)}`, text) : undefined
    case 'matches':
      return new RegExp(assertion.value, 'u').test(text) ? undefined : failed(assertion.value, text)
    case 'max-chars':
      return text.length <= assertion.value
        ? undefined
        : failed(`at most ${assertion.value} characters`, `${text.length} characters`)
  }
}

/** A report's quote of a value: strings clipped to CLIP_CHARS, anything else as JSON clipped alike. */
export function clipped(value: unknown): unknown {
  if (typeof value === 'string') return clip(value, CLIP_CHARS)
  const json = JSON.stringify(value) ?? 'undefined'
  return json.length > CLIP_CHARS ? clip(json, CLIP_CHARS) : value
}

/** What text assertions read of a render: the prompt, or its messages' contents separated by blank lines. */
export function renderedText(rendered: Rendered): string {
  const { prompt } = rendered
  return typeof prompt === 'string' ? prompt : prompt.map((m) => m.content).join('\n\n')
}
