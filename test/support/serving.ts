import type { ServerResponse } from 'node:http'

/** What the test servers share: a JSON answer, an error's message, a wait a client's leaving cuts short. */

export function send(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify(payload))
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Waits ms, or less if the signal (the client going away, the call's deadline) fires first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    if (signal.aborted) done()
    else signal.addEventListener('abort', done)
  })
}
