// lib/log.ts: one request's line stays a few KiB whatever its callers add.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MAX_LIST_ENTRIES, RequestLog, log } from '../../lib/log'

/** The lines written while `run` runs, parsed. */
function written(run: () => void): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = []
  for (const level of ['log', 'warn', 'error'] as const) {
    vi.spyOn(console, level).mockImplementation((line: unknown) => {
      lines.push(JSON.parse(String(line)) as Record<string, unknown>)
    })
  }
  run()
  return lines
}

afterEach(() => vi.restoreAllMocks())

describe('a request line', () => {
  it('keeps the first tool entries and, past them, totals by outcome', () => {
    const [line] = written(() => {
      const record = new RequestLog({ request_id: 'r' }, false)
      for (let i = 0; i < 100_000; i++) {
        record.append('tools', { tool: `t${i}`, outcome: i % 3 === 0 ? 'failed' : 'ok', reason: 'x'.repeat(50) })
      }
      record.write('info', { status: 200 })
    })
    expect(line?.tools).toHaveLength(MAX_LIST_ENTRIES)
    expect((line?.tools as { tool: string }[])[0]?.tool).toBe('t0')
    expect(line?.tools_total).toEqual({ ok: 66_666, failed: 33_334 })
    expect(JSON.stringify(line).length).toBeLessThan(4096)
  })

  it('stays under 8 KiB when many values each at their bound add up, keeping the totals', () => {
    const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, 'y'.repeat(1000)]))
    const [line] = written(() => {
      const record = new RequestLog({ request_id: 'r' }, false)
      for (let i = 0; i < 50; i++) record.event('warn', 'record skipped', { key: `k${i}`, ...wide })
      record.write('warn', { status: 200 })
    })
    expect(JSON.stringify(line).length).toBeLessThanOrEqual(8 * 1024)
    expect(line?.events_total).toEqual({ warn: 50 })
    expect(line).toMatchObject({ request_id: 'r', status: 200 })
  })

  it('carries no totals while every entry fits', () => {
    const [line] = written(() => {
      const record = new RequestLog({}, false)
      record.append('tools', { tool: 'a', outcome: 'ok' })
      record.write('info', {})
    })
    expect(line).toEqual({ level: 'info', msg: 'request', tools: [{ tool: 'a', outcome: 'ok' }] })
  })

  it('bounds events the same way, counted by level', () => {
    const [line] = written(() => {
      const record = new RequestLog({}, false)
      record.run(() => {
        for (let i = 0; i < 50; i++) log.warn('record skipped', { key: `k${i}` })
        log.info('using the embedded store')
      })
      record.write('info', {})
    })
    expect(line?.events).toHaveLength(MAX_LIST_ENTRIES)
    expect(line?.events_total).toEqual({ warn: 50, info: 1 })
  })

  it('cuts every string, list and nesting a caller sets, and says so', () => {
    const [line] = written(() => {
      const record = new RequestLog({}, false)
      record.set('error', { code: 'INTERNAL', message: 'm'.repeat(100_000), stack: 's'.repeat(100_000) })
      record.set(
        'list',
        Array.from({ length: 1000 }, (_, i) => i),
      )
      record.set('deep', { a: { b: { c: { d: { e: 1 } } } } })
      record.write('error', { status: 500 })
    })
    const error = line?.error as { message: string; stack: string }
    expect(error.message).toBe(`${'m'.repeat(400)}… (100000 chars)`)
    expect(error.stack).toHaveLength(error.message.length)
    expect(line?.list).toEqual([...Array.from({ length: 20 }, (_, i) => i), '… 980 more'])
    expect(line?.deep).toEqual({ a: { b: { c: '…' } } })
    expect(JSON.stringify(line).length).toBeLessThan(2048)
  })

  it('keeps a member named __proto__ as data', () => {
    const [line] = written(() => {
      const record = new RequestLog({}, false)
      record.set('names', JSON.parse('{"__proto__": {"polluted": true}}'))
      record.write('info', {})
    })
    expect(Object.hasOwn(line?.names as object, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('bounds the debug field too, more loosely', () => {
    const [line] = written(() => {
      const record = new RequestLog({}, true)
      record.debug({ rendered_prompt: 'p'.repeat(1_000_000) })
      record.write('info', {})
    })
    const debug = line?.debug as { rendered_prompt: string }
    expect(debug.rendered_prompt).toBe(`${'p'.repeat(4096)}… (1000000 chars)`)
  })
})

describe('a line outside a request', () => {
  it('is bounded as well', () => {
    const [line] = written(() => log.error('failed', { reason: 'r'.repeat(10_000) }))
    expect((line?.reason as string).length).toBeLessThan(450)
  })
})
