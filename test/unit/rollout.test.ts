// The rollout's rules and its documented hash, on their own (lib/rollout/choose.ts).
import { describe, expect, it } from 'vitest'
import { ServiceError } from '../../lib/errors'
import { bucketOf, checkRollout, choose, decodeRollout, versionAt } from '../../lib/rollout'

const v = (version: number, weight: number) => ({ version, weight })

function refusal(body: Parameters<typeof checkRollout>[0]): string {
  try {
    checkRollout(body)
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError)
    expect((e as ServiceError).code).toBe('BAD_REQUEST')
    return (e as ServiceError).message
  }
  throw new Error('the rollout was accepted')
}

describe('a rollout', () => {
  it('is 2 to 10 distinct versions whose integer weights sum to 100, kept newest first', () => {
    expect(checkRollout({ versions: [v(7, 90), v(8, 10)], sticky: 'header:X-User-Id' })).toEqual({
      versions: [v(8, 10), v(7, 90)],
      sticky: 'header:X-User-Id',
    })
    expect(refusal({ versions: [v(7, 100)] })).toMatch(/2 to 10 versions \(MAX_ROLLOUT_VERSIONS\), not 1/)
    const eleven = Array.from({ length: 11 }, (_, i) => v(i + 1, i === 0 ? 90 : 1))
    expect(refusal({ versions: eleven })).toMatch(/not 11/)
    expect(refusal({ versions: [v(7, 80), v(8, 10)] })).toMatch(/sum to 100, not 90/)
    expect(refusal({ versions: [v(7, 50), v(7, 50)] })).toMatch(/version 7 is named twice/)
    expect(refusal({ versions: [v(7, 50.5), v(8, 49.5)] })).toMatch(/weight of version 7/)
    expect(refusal({ versions: [v(0, 50), v(8, 50)] })).toMatch(/version 0 is not a version number/)
    expect(refusal({ versions: [v(7, 50), v(8, 50)], sticky: 'cookie:id' })).toMatch(/header:<name>' or 'arg:<name>/)
  })

  it('read from Redis is applied only when it is one', () => {
    expect(decodeRollout('{"versions":[{"version":2,"weight":60},{"version":1,"weight":40}],"sticky":null}')).toEqual({
      versions: [v(2, 60), v(1, 40)],
      sticky: null,
    })
    expect(decodeRollout('{"versions":[{"version":2,"weight":60}]}')).toBeUndefined()
    expect(decodeRollout('not json')).toBeUndefined()
  })
})

describe('the bucket of a sticky value', () => {
  it('is FNV-1a 32-bit of "<id>\\n<value>", modulo 100', () => {
    // The reference algorithm (fnv below) against published FNV-1a 32-bit test vectors.
    expect(fnv('a')).toBe(0xe40c292c)
    expect(fnv('foobar')).toBe(0xbf9cf968)
    expect(bucketOf('p.x', 'user-1')).toBe(fnv('p.x\nuser-1') % 100)
    expect(bucketOf('foo', 'bar')).toBe(fnv('foo\nbar') % 100)
  })

  it('keeps every value the newest version had when its weight grows', () => {
    const before = checkRollout({ versions: [v(7, 90), v(8, 10)] })
    const after = checkRollout({ versions: [v(7, 50), v(8, 50)] })
    for (let bucket = 0; bucket < 100; bucket++) {
      if (versionAt(before, bucket) === 8) expect(versionAt(after, bucket)).toBe(8)
    }
    expect(Array.from({ length: 100 }, (_, b) => versionAt(before, b)).filter((n) => n === 8)).toHaveLength(10)
  })

  it('is taken from the header or arg named, and is random, said so, when the request has none', () => {
    const byHeader = checkRollout({ versions: [v(1, 50), v(2, 50)], sticky: 'header:X-User-Id' })
    const headers = (value?: string) => ({
      header: (name: string) => (name === 'X-User-Id' ? value : undefined),
      args: {},
    })
    const chosen = choose(byHeader, 'p.x', headers('u-42'))
    expect(chosen).toEqual({ version: versionAt(byHeader, bucketOf('p.x', 'u-42')), why: 'header:X-User-Id' })
    expect(choose(byHeader, 'p.x', headers()).why).toBe('random: header:X-User-Id missing')
    const byArg = checkRollout({ versions: [v(1, 50), v(2, 50)], sticky: 'arg:user' })
    const args = (user: unknown) => ({ header: () => undefined, args: { user } })
    expect(choose(byArg, 'p.x', args(42))).toEqual({
      version: versionAt(byArg, bucketOf('p.x', '42')),
      why: 'arg:user',
    })
    expect(choose(byArg, 'p.x', args({ id: 1 })).why).toBe('random: arg:user missing')
    expect(choose(checkRollout({ versions: [v(1, 0), v(2, 100)] }), 'p.x', args(1))).toEqual({
      version: 2,
      why: 'random',
    })
  })
})

function fnv(text: string): number {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  return hash
}
