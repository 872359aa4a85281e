// The preview alias `npm run preview` derives from a branch name: a DNS-safe
// label that fits beside the Worker's name, and distinct for distinct branches.
import { describe, expect, it } from 'vitest'
import { previewAlias as alias } from '../../scripts/preview.mjs'

describe('previewAlias', () => {
  it('keeps a branch name that is already a label', () => {
    expect(alias('fix-cache', 'ai-prompt-shell')).toBe('fix-cache')
  })

  it('makes any branch a lowercase label that fits, starting with a letter', () => {
    const names = ['feature/Search', 'feature-search', 'Feature/search', '123-fix', '🎬', 'a'.repeat(200), 'x/../y']
    const aliases = names.map((n) => alias(n, 'ai-prompt-shell'))
    for (const a of aliases) {
      expect(a).toMatch(/^[a-z][a-z0-9-]*[a-z0-9]$/)
      expect(`${a}-ai-prompt-shell`.length).toBeLessThanOrEqual(63)
    }
    expect(new Set(aliases).size).toBe(names.length)
  })

  it('refuses an empty branch name', () => {
    expect(() => alias('', 'ai-prompt-shell')).toThrow(/no branch name/)
  })
})
