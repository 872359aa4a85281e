/**
 * The Worker with a deployed Worker's clock: `Date.now()` moves only when a
 * request starts and around its fetches (I/O), never during CPU work, as on
 * Cloudflare. Locally the clock moves during CPU work and a render's
 * deadline ends a CPU-bound loop that, deployed, only the step budget ends;
 * bench/hostile-2.ts runs issue 27's row 4 on this entry (`wrangler dev
 * bench/frozen-clock.ts`) so that the budget, not the clock, must end it.
 */
import type { Env } from '../lib/env'
import app from '../functions/index'

const realNow = Date.now.bind(Date)
let now = realNow()
const tick = (): void => void (now = realNow())
Date.now = () => now

const realFetch = globalThis.fetch.bind(globalThis)
globalThis.fetch = async (...args: Parameters<typeof fetch>): Promise<Response> => {
  tick()
  try {
    return await realFetch(...args)
  } finally {
    tick()
  }
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
    tick()
    return app.fetch(request, env, ctx)
  },
}
