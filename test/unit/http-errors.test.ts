// The one error handler: codes and statuses, and what an answer may say.
import { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { describe, expect, it } from 'vitest'
import { ServiceError, misconfigured } from '../../lib/errors'
import { ERROR_STATUS, onError } from '../../lib/http'

function appThrowing(error: Error): Hono {
  const app = new Hono()
  app.get('/', () => {
    throw error
  })
  app.onError(onError)
  return app
}

async function answer(error: Error): Promise<{ status: number; body: unknown }> {
  const res = await appThrowing(error).request('/')
  return { status: res.status, body: await res.json() }
}

describe('onError', () => {
  it('answers INTERNAL with nothing but "internal error", whatever threw it', async () => {
    const internal = { status: 500, body: { status: 'error', code: 'INTERNAL', message: 'internal error' } }
    expect(await answer(new ServiceError('INTERNAL', 'the secret LLM_KEY is wrong'))).toEqual(internal)
    expect(await answer(new HTTPException(503, { message: 'upstream detail' }))).toEqual(internal)
    expect(await answer(new TypeError('x is undefined at lib/whatever.ts'))).toEqual(internal)
  })

  it('answers MISCONFIGURED 503 naming the setting', async () => {
    expect(await answer(misconfigured('RENDER_TIMEOUT_MS', "must be a positive integer, got 'abc'"))).toEqual({
      status: 503,
      body: {
        status: 'error',
        code: 'MISCONFIGURED',
        message: "RENDER_TIMEOUT_MS must be a positive integer, got 'abc'",
        setting: 'RENDER_TIMEOUT_MS',
      },
    })
  })

  it('pairs the new codes with their statuses', async () => {
    expect([ERROR_STATUS.PAYLOAD_TOO_LARGE, ERROR_STATUS.LIMIT_EXCEEDED, ERROR_STATUS.MISCONFIGURED]).toEqual([
      413, 422, 503,
    ])
    const tooLarge = await answer(new HTTPException(413))
    expect(tooLarge).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } })
  })
})
