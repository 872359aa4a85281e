/**
 * What of an upstream answer a warning may quote. An error body can hold
 * anything (a stack, a connection string, the caller's own arguments, the
 * service's key echoed), so a failure is told by its status line, and a
 * reason meant for the caller (an MCP tool's error result, a provider's
 * message) only in short, and with the service's secrets redacted.
 */
import { redactedHead } from '../redact'

/** Characters of a reason phrase or a short reason at most. */
const REASON_CHARS = 100

/** `HTTP 500 Internal Server Error`: the status and its reason phrase, made safe to quote. */
export function statusLine(response: Response): string {
  const phrase = shortReason(response.statusText)
  return phrase === '' ? `HTTP ${response.status}` : `HTTP ${response.status} ${phrase}`
}

/** The first line of `text`, its control characters and the service's secrets removed, at most `chars` characters. */
export function shortReason(text: string, chars: number = REASON_CHARS): string {
  const line = /^[^\r\n]*/.exec(text.trimStart())?.[0] ?? ''
  // C0 and C1 controls, and the bidirectional marks that could reorder what a reader sees.
  const clean = line.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim()
  const { head, cut } = redactedHead(clean, chars)
  if (!cut && head.length <= chars) return head
  // By code point, so that a pair of surrogates is never split.
  return `${[...head].slice(0, chars - 1).join('')}…`
}
