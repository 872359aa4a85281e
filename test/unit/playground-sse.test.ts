// The playground's reader of server-sent events (public/playground/sse.js),
// imported as the page imports it: events split across reads, named and
// parsed; and an event past its bound stops the reading, whether it comes
// as one long line or as many short `data:` lines.
import { describe, expect, it } from 'vitest'
import { EventTooLarge, MAX_EVENT_CHARS, sseEvents } from '../../public/playground/sse.js'

/** A body of these text pieces, one read each; counts the pieces read. */
function body(pieces: Iterable<string>): { stream: ReadableStream<Uint8Array>; read: () => number } {
  const encoder = new TextEncoder()
  const iterator = pieces[Symbol.iterator]()
  let read = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = iterator.next()
      if (next.done) return controller.close()
      read++
      controller.enqueue(encoder.encode(next.value))
    },
  })
  return { stream, read: () => read }
}

async function all(stream: ReadableStream<Uint8Array>): Promise<{ name?: string; data: unknown }[]> {
  const events: { name?: string; data: unknown }[] = []
  for await (const event of sseEvents(stream)) events.push(event as { name?: string; data: unknown })
  return events
}

/** Short `data:` lines without end: an event that never closes. */
function* shortLines(): Generator<string> {
  for (;;) yield 'data: ' + 'x'.repeat(1_000) + '\n'
}

/** The pieces read: those up to the bound's, and at most the one or two the decoder's pipe reads ahead. */
function readAbout(read: number, expected: number): void {
  expect(read).toBeGreaterThanOrEqual(expected)
  expect(read).toBeLessThanOrEqual(expected + 2)
}

describe('sseEvents', () => {
  it('reads events split across reads, their names, JSON data and [DONE]', async () => {
    const { stream } = body([
      'data: {"a"',
      ': 1}\n\nevent: step\r\ndata: {"step":',
      ' {"step": 1}}\n\n',
      'data: [DONE]\n\n',
    ])
    expect(await all(stream)).toEqual([
      { name: undefined, data: { a: 1 } },
      { name: 'step', data: { step: { step: 1 } } },
      { name: 'done', data: null },
    ])
  })

  it('joins an event of several data lines with newlines', async () => {
    const { stream } = body(['data: one\ndata: two\n\n'])
    expect(await all(stream)).toEqual([{ name: undefined, data: 'one\ntwo' }])
  })

  it('stops on an event of many short data lines past the bound, and reads no further', async () => {
    const { stream, read } = body(shortLines())
    const error = await all(stream).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(EventTooLarge)
    expect((error as EventTooLarge).code).toBe('EVENT_TOO_LARGE')
    expect((error as Error).message).toContain(`over ${MAX_EVENT_CHARS} characters`)
    // Each line is 1,007 characters: the reading stopped at the first read past the bound.
    readAbout(read(), Math.floor(MAX_EVENT_CHARS / 1_007) + 1)
  })

  it('stops on one line past the bound before it ends', async () => {
    function* long(): Generator<string> {
      yield 'data: '
      for (;;) yield 'y'.repeat(65_536)
    }
    const { stream, read } = body(long())
    await expect(all(stream)).rejects.toThrow(EventTooLarge)
    readAbout(read(), Math.ceil((MAX_EVENT_CHARS - 6) / 65_536) + 1)
  })

  it('counts each event on its own: many events under the bound pass', async () => {
    const event = 'data: ' + 'z'.repeat(100_000) + '\n\n'
    const { stream } = body(Array.from({ length: 30 }, () => event))
    expect(await all(stream)).toHaveLength(30)
  })
})
