import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'

const RECORDS_MODULE = 'lib/store/embedded-records.generated.ts'

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

  it('leave the list of examples out of git, so that adding an example under npm run dev rewrites no committed file', () => {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: 'pipe' })
    expect(git('ls-files', RECORDS_MODULE)).toBe('')
    expect(git('check-ignore', RECORDS_MODULE)).toBe(`${RECORDS_MODULE}\n`)
  })
})
