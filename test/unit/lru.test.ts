import { describe, expect, it } from 'vitest'
import { Lru } from '../../lib/lru'

describe('Lru weighed', () => {
  it('drops the least recent entries until the weights kept are within the bound', () => {
    const lru = new Lru<string, number>(100, 10)
    lru.set('a', 1, 4)
    lru.set('b', 2, 4)
    lru.get('a')
    lru.set('c', 3, 4)
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual([1, undefined, 3])
    expect(lru.weight).toBe(8)
  })

  it('keeps no entry heavier than the bound alone, and forgets what it replaced', () => {
    const lru = new Lru<string, number>(100, 10)
    lru.set('a', 1, 4)
    lru.set('a', 2, 11)
    expect(lru.get('a')).toBeUndefined()
    expect(lru.weight).toBe(0)
  })

  it('is bounded in entries as before', () => {
    const lru = new Lru<number, number>(2)
    for (let i = 0; i < 5; i++) lru.set(i, i)
    expect(lru.size).toBe(2)
    expect(lru.get(4)).toBe(4)
  })
})
