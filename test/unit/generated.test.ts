import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'

describe('generated modules', () => {
  it('match jsonschema/ and the routes (run `npm run generate` when this fails)', () => {
    let output = ''
    try {
      execFileSync(process.execPath, ['scripts/generate.mjs', '--check'], { encoding: 'utf8', stdio: 'pipe' })
    } catch (e) {
      output = String((e as { stderr?: string }).stderr)
    }
    expect(output).toBe('')
  })
})
