import { TimerTurns } from '../abort'
import { TooLargeError } from './bounded-read'
import type { ByteLimit } from './bounded-read'

/** A server-sent event as it came: its text, its name (`event:`), and its data (the `data:` lines joined). */
export interface SseEvent {
  raw: string
  name: string | undefined
  data: string
}

const CR = 13
const LF = 10

/**
 * A stream of server-sent events read as it arrives, by the rules of the
 * WHATWG HTML standard: UTF-8 (a leading BOM dropped), lines ended by CRLF,
 * LF or CR, an event ended by a blank line and dispatched only when it has
 * data, `event` and `data` fields (one space after the colon dropped),
 * comments (`:`) and other fields (`id`, `retry`) ignored, a last event
 * without its blank line never dispatched.
 *
 * Each character is looked at once, when it arrives, and copied a bounded
 * number of times: an unfinished line or event is kept as the pieces it came
 * in and joined once, when it ends. (Appending each chunk to one string and
 * searching it again made a rope that every search flattened: quadratic.)
 * The event still open is bounded: past `limit` characters (its text so far,
 * comments included) the stream fails with TooLargeError; the stream as a
 * whole is its reader's to bound.
 */
export class SseParser {
  readonly #decoder = new TextDecoder()
  readonly #limit: ByteLimit
  /** The open event's text so far, as it came, its size, and its fields. */
  #raw: string[] = []
  #size = 0
  #name: string | undefined
  #data: string[] = []
  /** The open line's pieces, from earlier chunks. */
  #line: string[] = []
  /** The last chunk ended in a CR, which ended a line or (a blank one) an event: an LF first in the next is its CRLF's. */
  #afterCr: 'line' | 'event' | undefined
  #work = 0

  constructor(limit: ByteLimit) {
    this.#limit = limit
  }

  /** Characters looked at and copied so far: what a test counts to see the work is linear in the stream. */
  get work(): number {
    return this.#work
  }

  /** The events a chunk of the stream completes. */
  push(chunk: Uint8Array): SseEvent[] {
    const text = this.#decoder.decode(chunk, { stream: true })
    if (text === '') return []
    this.#work += text.length
    const events: SseEvent[] = []
    // The LF of a CRLF cut between chunks ends nothing; after an event's end, it is no part of the next one's text.
    const skip = this.#afterCr !== undefined && text.charCodeAt(0) === LF
    let start = skip ? 1 : 0
    let eventStart = skip && this.#afterCr === 'event' ? 1 : 0
    this.#afterCr = undefined
    for (let at = start; at < text.length; at++) {
      const c = text.charCodeAt(at)
      if (c !== CR && c !== LF) continue
      this.#line.push(text.slice(start, at))
      const line = this.#joined(this.#line)
      this.#line = []
      const cut = c === CR && at + 1 === text.length
      if (c === CR && text.charCodeAt(at + 1) === LF) at++
      start = at + 1
      if (line !== '') {
        this.#field(line)
        if (cut) this.#afterCr = 'line'
        continue
      }
      if (cut) this.#afterCr = 'event'
      this.#raw.push(text.slice(eventStart, start))
      const raw = this.#joined(this.#raw)
      eventStart = start
      this.#raw = []
      this.#size = 0
      if (this.#data.length > 0) events.push({ raw, name: this.#name, data: this.#joined(this.#data, '\n') })
      this.#name = undefined
      this.#data = []
    }
    if (start < text.length) this.#line.push(text.slice(start))
    if (eventStart < text.length) {
      this.#raw.push(text.slice(eventStart))
      this.#size += text.length - eventStart
    }
    if (this.#size > this.#limit.bytes) throw new TooLargeError(this.#limit)
    return events
  }

  #field(line: string): void {
    const colon = line.indexOf(':')
    this.#work += colon === -1 ? line.length : colon + 1
    if (colon === 0) return
    const name = colon === -1 ? line : line.slice(0, colon)
    const value = colon === -1 ? '' : line.slice(colon + (line.charCodeAt(colon + 1) === 32 ? 2 : 1))
    if (name === 'event') this.#name = value === '' ? undefined : value
    else if (name === 'data') this.#data.push(value)
  }

  /** The one copy a line, an event's text or its data is made of. */
  #joined(pieces: string[], separator = ''): string {
    if (pieces.length === 1) return pieces[0] as string
    const out = pieces.join(separator)
    this.#work += out.length
    return out
  }
}

/**
 * The events of a stream of server-sent events, each with its text, as
 * they arrive. One open event is bounded by `limit` (see SseParser); the
 * stream's bytes and pace are its producer's to bound (stream() bounds a
 * provider's).
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>, limit: ByteLimit): AsyncGenerator<SseEvent> {
  const parser = new SseParser(limit)
  const reader = body.getReader()
  const turns = new TimerTurns()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      await turns.next()
      yield* parser.push(value)
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}
