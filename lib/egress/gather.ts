import { concat } from './bounded-read'

/** The reads one piece gathers at most: a piece is one enqueue, where each read is one. */
const GATHER_READS = 64
/** The bytes one piece gathers at most. */
const GATHER_BYTES = 64 * 1024

const PAUSED: unique symbol = Symbol('paused')
const FAILED: unique symbol = Symbol('failed')

/**
 * A stream read in pieces: a chunk and those that arrive right after it,
 * together. A server may send a megabyte in 16-byte chunks; forwarded one
 * by one, each costs an enqueue and a chunk for whoever reads ours (seconds
 * of the isolate's time), and read without pause they never let workerd's
 * event loop reach its timers, so no deadline fires until the sender stops.
 * A piece ends when the stream pauses (a timer of 0 ms fires first, as it
 * does whenever no read is ready) or after GATHER_READS reads or
 * GATHER_BYTES; then it waits for that timer, which gives every timer due a
 * turn. A lone chunk (an LLM's token) goes on at once.
 */
export class PieceReader {
  /** A read a piece started and did not wait for: the next one. */
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined

  constructor(readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** The next read, as the stream's own reader answers it. */
  read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    const next = this.#pending ?? this.reader.read()
    this.#pending = undefined
    return next
  }

  /** `first` and what arrives right after it; `done` when the stream ended meanwhile. */
  async gather(first: Uint8Array): Promise<{ piece: Uint8Array; done: boolean }> {
    const parts = [first]
    let size = first.byteLength
    let done = false
    const pause = new Promise<typeof PAUSED>((resolve) => setTimeout(() => resolve(PAUSED), 0))
    for (let reads = 1; reads < GATHER_READS && size < GATHER_BYTES; reads++) {
      const next = this.reader.read()
      const result = await Promise.race([next, pause]).catch((): typeof FAILED => FAILED)
      if (result === PAUSED || result === FAILED) {
        // What was gathered goes on; a failed read is the next read's to report, after it.
        next.catch(() => undefined)
        this.#pending = next
        break
      }
      if (result.done) {
        done = true
        break
      }
      parts.push(result.value)
      size += result.value.byteLength
    }
    await pause
    return { piece: parts.length === 1 ? first : concat(parts, size), done }
  }
}
