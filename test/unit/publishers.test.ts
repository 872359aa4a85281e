// PUBLISHERS as the Worker reads it, and what each scope allows.
import { describe, expect, it } from 'vitest'
import { ServiceError } from '../../lib/errors'
import { ADMIN, MAX_PUBLISHERS, holds, parsePublishers, writeScope } from '../../lib/publishers'

const HASH = 'a'.repeat(64)

function failure(raw: string): ServiceError {
  try {
    parsePublishers(raw)
  } catch (e) {
    if (e instanceof ServiceError) return e
    throw e
  }
  throw new Error(`${raw} was accepted`)
}

describe('PUBLISHERS', () => {
  it('reads each publisher, its hash in lower case; unset, none', () => {
    expect(parsePublishers(undefined)).toEqual([])
    expect(
      parsePublishers(JSON.stringify([{ name: 'ci', token_sha256: 'B'.repeat(64), scopes: ['promote'] }])),
    ).toEqual([{ name: 'ci', tokenSha256: 'b'.repeat(64), scopes: ['promote'] }])
  })

  it('refuses what it cannot use, naming PUBLISHERS', () => {
    const many = Array.from({ length: MAX_PUBLISHERS + 1 }, (_, i) => ({
      name: `p${i}`,
      token_sha256: i.toString(16).padStart(64, '0'),
      scopes: [],
    }))
    for (const [raw, says] of [
      ['[', /not JSON/],
      ['{}', /must be a JSON array/],
      [JSON.stringify(many), /more than 100/],
      [JSON.stringify([{ name: '', token_sha256: HASH, scopes: [] }]), /name must be/],
      [JSON.stringify([{ name: 'x', token_sha256: HASH }]), /scopes must be an array/],
      [JSON.stringify([{ name: 'x', token_sha256: HASH, scopes: ['write:Feat'] }]), /not a scope/],
      [JSON.stringify([{ name: 'x', token_sha256: HASH, scopes: ['write:a:b'] }]), /not a scope/],
    ] as const) {
      const e = failure(raw)
      expect(e.code).toBe('MISCONFIGURED')
      expect(e.extra).toEqual({ setting: 'PUBLISHERS' })
      expect(e.message).toMatch(says)
    }
  })
})

describe('scopes', () => {
  const ci = { name: 'ci', scopes: ['write:feat-*', 'write:release', 'rollback'] }

  it('match labels by glob, and the base only by write:base', () => {
    expect(holds(ci, writeScope('feat-x'))).toBe(true)
    expect(holds(ci, writeScope('feat-'))).toBe(true)
    expect(holds(ci, writeScope('release'))).toBe(true)
    expect(holds(ci, writeScope('releases'))).toBe(false)
    expect(holds(ci, writeScope('fix-feat-x'))).toBe(false)
    expect(holds(ci, writeScope(undefined))).toBe(false)
    expect(holds({ name: 'b', scopes: ['write:b*', 'write:*'] }, writeScope(undefined))).toBe(false)
    expect(holds({ name: 'b', scopes: ['write:base'] }, writeScope(undefined))).toBe(true)
  })

  it('match an action by name', () => {
    expect(holds(ci, 'rollback')).toBe(true)
    expect(holds(ci, 'promote')).toBe(false)
    expect(holds(ci, 'approve')).toBe(false)
  })

  it('give ADMIN_TOKEN every one', () => {
    for (const scope of [writeScope(undefined), writeScope('any-label'), 'promote', 'rollback', 'rollout', 'approve']) {
      expect(holds(ADMIN, scope), scope).toBe(true)
    }
  })
})
