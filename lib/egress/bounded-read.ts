import { TimerTurns, abortable } from '../abort'

/** A bound on the bytes of an answer, and the setting that chose it, for the message that names it. */
export interface ByteLimit {
  bytes: number
  /** The variable that sets it (`TOOL_MAX_BYTES`). */
  name: string
}

/** An answer over its limit: a reason worded for a warning or an error answer. */
export class TooLargeError extends Error {
  constructor(
    readonly limit: ByteLimit,
    declared?: number,
  ) {
    super(
      declared === undefined
        ? `answered more than ${limit.name} (${limit.bytes} bytes)`
        : `answered ${declared} bytes (its Content-Length), more than ${limit.name} (${limit.bytes} bytes)`,
    )
  }
}

/**
 * An answer's body, read as a stream and never past `limit`: a Content-Length
 * over it fails before reading, and a body that grows past it is cancelled
 * (which lets the connection go) and fails. Each read waits only as long as
 * `signal` allows. `enough`, told each chunk, ends the read early once the
 * body holds what was wanted (a reply inside a stream the server keeps open);
 * the rest is let go.
 */
export async function readBody(
  response: Response,
  limit: ByteLimit,
  signal: AbortSignal,
  enough?: (chunk: Uint8Array) => boolean,
): Promise<Uint8Array> {
  const declared = response.headers.get('content-length')
  if (declared !== null && Number(declared) > limit.bytes) {
    await cancelBody(response)
    throw new TooLargeError(limit, Number(declared))
  }
  if (!response.body) return new Uint8Array(0)
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  const turns = new TimerTurns()
  let size = 0
  try {
    for (;;) {
      const { done, value } = await abortable(reader.read(), signal)
      if (done) break
      const turn = turns.next()
      if (turn) await abortable(turn, signal)
      size += value.byteLength
      if (size > limit.bytes) throw new TooLargeError(limit)
      chunks.push(value)
      if (enough?.(value)) {
        void reader.cancel().catch(() => undefined)
        break
      }
    }
  } catch (e) {
    void reader.cancel().catch(() => undefined)
    throw e
  }
  return concat(chunks, size)
}

/** Lets an answer's connection go without reading it. */
export async function cancelBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined)
}

/** UTF-8 text that keeps a leading BOM: it is part of what was answered (Go keeps it too). */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes)
}

/** JSON text, a leading BOM aside: JSON.parse refuses one, and a BOM is no part of the value. */
export function parseJson(text: string): unknown {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
}

/** The chunks as one array of `size` bytes. */
export function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array
  const out = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
  }
  return out
}
