import { describe, expect, it } from 'vitest'
import { SseParser, TooLargeError, sseEvents } from '../../lib/egress'
import type { SseEvent } from '../../lib/egress'

const limit = { bytes: 4 * 1024 * 1024, name: 'TEST_MAX_BYTES' }
const bytes = (text: string) => new TextEncoder().encode(text)

/** The events of `chunks`, fed one by one to one parser. */
function parse(chunks: readonly Uint8Array[], parser = new SseParser(limit)): SseEvent[] {
  return chunks.flatMap((chunk) => parser.push(chunk))
}

/** `text` in chunks of `size` bytes. */
function chunked(text: string, size: number): Uint8Array[] {
  const all = bytes(text)
  const out: Uint8Array[] = []
  for (let at = 0; at < all.length; at += size) out.push(all.subarray(at, at + size))
  return out
}

/** A stream with every line ending, comments, fields ignored, multi-line data, a blank-line run and a non-ASCII name. */
const SAMPLE =
  ': a comment\r\n' +
  'event: delta\r\n' +
  'data: {"a":1}\r\n' +
  '\r\n' +
  'data:no space\n' +
  'data:  two spaces\n' +
  'data\n' +
  'id: 7\n' +
  'retry: 1000\n' +
  'unknown: field\n' +
  '\n' +
  '\n' +
  'event: naïve\r' +
  'data: é€𝄞\r' +
  ':\r' +
  '\r' +
  'event:\r\n' +
  'data: line 1\r\n' +
  'data: line 2\r\n' +
  '\r\n' +
  'event: no data\n' +
  '\n' +
  'data: the last, without its blank line\n'

const EXPECTED: SseEvent[] = [
  { raw: ': a comment\r\nevent: delta\r\ndata: {"a":1}\r\n\r\n', name: 'delta', data: '{"a":1}' },
  {
    raw: 'data:no space\ndata:  two spaces\ndata\nid: 7\nretry: 1000\nunknown: field\n\n',
    name: undefined,
    data: 'no space\n two spaces\n',
  },
  { raw: 'event: naïve\rdata: é€𝄞\r:\r\r', name: 'naïve', data: 'é€𝄞' },
  { raw: 'event:\r\ndata: line 1\r\ndata: line 2\r\n\r\n', name: undefined, data: 'line 1\nline 2' },
]

/**
 * EXPECTED, but for a blank line's CRLF cut between chunks: its event is
 * dispatched at the CR, and its text ends there.
 */
function expectEvents(events: SseEvent[], why: string): void {
  const cutAtCr = events.map((e) => (e.raw.endsWith('\r\n\r') ? { ...e, raw: `${e.raw}\n` } : e))
  expect(cutAtCr, why).toEqual(EXPECTED)
}

describe('SseParser', () => {
  it('reads CRLF, LF and CR lines, the WHATWG fields, comments, and dispatches only events with data and their blank line', () => {
    expect(parse([bytes(SAMPLE)])).toEqual(EXPECTED)
  })

  it('reads the same events whatever byte the stream is cut at, between a CR and its LF and inside a character too', () => {
    const all = bytes(SAMPLE)
    for (let cut = 0; cut <= all.length; cut++) {
      expectEvents(parse([all.subarray(0, cut), all.subarray(cut)]), `cut at ${cut}`)
    }
    for (const size of [1, 2, 3, 5, 7]) expectEvents(parse(chunked(SAMPLE, size)), `chunks of ${size}`)
  })

  it('ends a line at a CR that ends a chunk, and takes a next LF as its CRLF, not as a blank line', () => {
    const parser = new SseParser(limit)
    expect(parser.push(bytes('data: a\r'))).toEqual([])
    expect(parser.push(bytes('\n'))).toEqual([])
    expect(parser.push(bytes('\r'))).toEqual([{ raw: 'data: a\r\n\r', name: undefined, data: 'a' }])
    // The LF of the blank line's CRLF is no part of the next event's text.
    expect(parser.push(bytes('\ndata: b\n\n'))).toEqual([{ raw: 'data: b\n\n', name: undefined, data: 'b' }])
  })

  it('drops a leading BOM once, and only at the start', () => {
    expect(parse([bytes('\uFEFFdata: a\n\n\uFEFFdata: b\n\n')])).toEqual([
      { raw: 'data: a\n\n', name: undefined, data: 'a' },
    ])
  })

  it('fails an open event past its limit, comments and all, and not a stream of small events past it', () => {
    const small = { bytes: 64, name: 'TEST_MAX_BYTES' }
    expect(() => parse(chunked(`data: ${'x'.repeat(60)}`, 16), new SseParser(small))).toThrow(TooLargeError)
    expect(() => parse(chunked(': ping\n'.repeat(10), 16), new SseParser(small))).toThrow(
      'answered more than TEST_MAX_BYTES (64 bytes)',
    )
    expect(parse(chunked('data: 0123456789\n\n'.repeat(100), 16), new SseParser(small))).toHaveLength(100)
  })

  it('does work linear in the stream for 1 MB without a blank line in 16-byte chunks', () => {
    const work = (size: number) => {
      const parser = new SseParser(limit)
      const events = parse(chunked(`data: ${'x'.repeat(size - 8)}\n\n`, 16), parser)
      expect(events[0]?.data.length).toBe(size - 8)
      return parser.work
    }
    const half = work(512 * 1024)
    const whole = work(1024 * 1024)
    // Each character looked at once and copied into its line, its event's text and its data: at most 4 times.
    expect(whole).toBeLessThanOrEqual(4 * 1024 * 1024)
    expect(whole / half).toBeLessThan(2.01)
  })
})

describe('sseEvents', () => {
  it('yields the events as they arrive, and lets the stream go when its reader stops', async () => {
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunked(SAMPLE, 3)) controller.enqueue(chunk)
      },
      cancel() {
        cancelled = true
      },
    })
    const events: SseEvent[] = []
    for await (const event of sseEvents(body, limit)) {
      events.push(event)
      if (events.length === EXPECTED.length) break
    }
    expectEvents(events, 'chunks of 3')
    expect(cancelled).toBe(true)
  })
})
