// The preview alias `npm run preview` derives from a branch name: a DNS-safe
// label that fits beside the Worker's name, distinct for distinct branches,
// and a label the service accepts (the preview reads and publishes into it).
import { describe, expect, it } from 'vitest'
import { LABEL_PATTERN } from '../../lib/store/keys'
import { previewAlias as alias, previewCommands } from '../../scripts/preview.mjs'

describe('previewAlias', () => {
  it('keeps a branch name that is already a label', () => {
    expect(alias('fix-cache', 'ai-prompt-shell')).toBe('fix-cache')
  })

  it('makes any branch a lowercase label that fits, starting with a letter', () => {
    const names = ['feature/Search', 'feature-search', 'Feature/search', '123-fix', '🎬', 'a'.repeat(200), 'x/../y']
    const aliases = names.map((n) => alias(n, 'ai-prompt-shell'))
    for (const a of aliases) {
      expect(a).toMatch(/^[a-z][a-z0-9-]*[a-z0-9]$/)
      expect(a).toMatch(LABEL_PATTERN)
      expect(`${a}-ai-prompt-shell`.length).toBeLessThanOrEqual(63)
    }
    expect(new Set(aliases).size).toBe(names.length)
  })

  it('is a label for a Worker of any name that leaves room', () => {
    for (const worker of ['w', 'ai-prompt-shell', 'x'.repeat(52)]) {
      for (const branch of ['main', 'Feature/Ü', '-', 'a'.repeat(100), 'release/1.2.3']) {
        expect(alias(branch, worker)).toMatch(LABEL_PATTERN)
      }
    }
  })

  it('refuses an empty branch name', () => {
    expect(() => alias('', 'ai-prompt-shell')).toThrow(/no branch name/)
  })
})

describe('previewCommands', () => {
  const upload = [
    'wrangler',
    'versions',
    'upload',
    '--minify',
    '--preview-alias',
    'feat-x',
    '--var',
    'PROMPT_LABEL:feat-x',
  ]

  it("publishes records/ into the alias's label, then uploads with PROMPT_LABEL set to it", () => {
    const commands = previewCommands({
      alias: 'feat-x',
      args: ['--tag', 't'],
      dryRun: false,
      recordsExist: true,
      message: 'm',
    })
    expect(commands).toEqual([
      ['node', ['bin/ai-prompt-shell.mjs', 'publish', 'records/', '--label', 'feat-x', '--message', 'm']],
      ['npx', [...upload, '--tag', 't']],
    ])
  })

  it('under --dry-run only validates and lists the records, and builds without uploading', () => {
    const commands = previewCommands({
      alias: 'feat-x',
      args: ['--dry-run'],
      dryRun: true,
      recordsExist: true,
      message: 'm',
    })
    expect(commands).toEqual([
      ['node', ['bin/ai-prompt-shell.mjs', 'publish', 'records/', '--label', 'feat-x', '--dry-run']],
      ['npx', [...upload, '--dry-run']],
    ])
  })

  it("runs the label's tests after the upload when a deployment is named, their report to the job summary", () => {
    const test = ['bin/ai-prompt-shell.mjs', 'test', '--label', 'feat-x']
    const planned = (options: object) =>
      previewCommands({ alias: 'feat-x', args: [], dryRun: false, recordsExist: true, message: 'm', ...options })
    expect(planned({ testing: true, summary: '/tmp/summary.md' })).toEqual([
      ['node', ['bin/ai-prompt-shell.mjs', 'publish', 'records/', '--label', 'feat-x', '--message', 'm']],
      ['npx', upload],
      ['node', [...test, '--summary', '/tmp/summary.md']],
    ])
    expect(planned({ testing: true }).at(-1)).toEqual(['node', test])
    expect(planned({ testing: false }).at(-1)).toEqual(['npx', upload])
    expect(planned({ testing: true, dryRun: true }).at(-1)).toEqual(['npx', upload])
    expect(planned({ testing: true, recordsExist: false })).toEqual([['npx', upload]])
  })

  it('publishes nothing without a records/ folder', () => {
    const commands = previewCommands({ alias: 'feat-x', args: [], dryRun: false, recordsExist: false, message: 'm' })
    expect(commands).toEqual([['npx', upload]])
  })
})
