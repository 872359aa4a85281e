// `ai-prompt-shell test --file` as authors run it (`npx`, a Node process of
// its own, no server): the examples' cases all pass; a copy of the examples
// with one case made to fail exits 1 and prints that case's expected and actual.
import { execFile } from 'node:child_process'
import { cp, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

/** `npx ai-prompt-shell ...args`: exit status and output, with none of this environment's service settings. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, AI_PROMPT_SHELL_URL: '', API_TOKEN: '', TOOLS_BASE_URL: '', GITHUB_STEP_SUMMARY: '' }
  try {
    const { stdout, stderr } = await run('npx', ['ai-prompt-shell', ...args], { env })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

interface Cased {
  name?: string
  tests?: { name: string; assert?: unknown[] }[]
  contributes?: { prompts?: Cased[] }
}

/** The first prompt definition with cases in a record: a template's, or one of an extension's prompts. */
function withCases(record: Cased): Cased | undefined {
  if ((record.tests?.length ?? 0) > 0) return record
  return record.contributes?.prompts?.find((p) => (p.tests?.length ?? 0) > 0)
}

describe('test --file', () => {
  it('passes every case of the examples, with no server, exit 0', { timeout: 60_000 }, async () => {
    const { code, stdout } = await cli(['test', '--file', 'examples'])
    expect(code).toBe(0)
    const counts = /^(\d+) cases?: (\d+) passed, 0 failed, (\d+) skipped, 0 errors$/m.exec(stdout)
    expect(counts).not.toBeNull()
    expect(Number(counts?.[1])).toBeGreaterThan(0)
    expect(stdout).not.toMatch(/^(fail|error) /m)
  })

  it('exits 1 with a failing case, printing its expected and actual', { timeout: 60_000 }, async () => {
    const root = await mkdtemp(join(tmpdir(), 'aps-cli-test-'))
    await cp('examples', root, { recursive: true })
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.json'))
    let changed: string | undefined
    for (const file of files) {
      const record = JSON.parse(await readFile(join(root, file), 'utf8')) as Cased
      const prompt = withCases(record)
      const first = prompt?.tests?.[0]
      if (first === undefined) continue
      first.assert = [...(first.assert ?? []), { type: 'contains', value: 'words no example says' }]
      await writeFile(join(root, file), JSON.stringify(record))
      changed = first.name
      break
    }
    expect(changed).toBeDefined()
    const { code, stdout } = await cli(['test', '--file', root])
    expect(code).toBe(1)
    expect(stdout).toMatch(new RegExp(`^fail +\\S+ +${escape(JSON.stringify(changed))}`, 'm'))
    expect(stdout).toContain('    contains\n      expected: "words no example says"\n      actual:   "')
    expect(stdout).toMatch(/^\d+ cases?: \d+ passed, 1 failed, \d+ skipped, 0 errors$/m)
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
