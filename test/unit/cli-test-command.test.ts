// `test` and `promote --force` against a local HTTP server standing in for a
// deployment: the requests they send, what they print of the answers (a
// report, a 409 TESTS_FAILED with its report), their exit statuses.
import { createServer } from 'node:http'
import type { IncomingMessage, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../cli/index'
import { reportLines, reportMarkdown } from '../../cli/test-report'
import type { TestReport } from '../../lib/prompt-tests/types'
import { folder } from '../support/folder'
import { REPORT } from '../support/prompt-test-report'

/** A stand-in deployment: answers each request with `answer`, keeping what was asked. */
let server: Server
let url: string
let answer: { status: number; body: unknown } = { status: 200, body: {} }
const asked: { method: string; url: string; body: string }[] = []

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      asked.push({ method: req.method ?? '', url: req.url ?? '', body })
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

async function cli(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = []
  const err: string[] = []
  asked.length = 0
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env })
  return { code, out, err }
}

describe('promote --force through the write API', () => {
  it("asks force=true, and prints a 409 TESTS_FAILED's report as test does, exit 1", async () => {
    answer = {
      status: 409,
      body: { status: 'error', code: 'TESTS_FAILED', message: '2 of 4 tests failed', report: REPORT },
    }
    const refused = await cli(['promote', '--from', 'feat-x', '--api', url, '--admin-token', 't'])
    expect(refused.code).toBe(1)
    expect(asked.map((a) => a.url)).toEqual(['/api/labels/feat-x/promote'])
    expect(refused.out).toEqual(reportLines(REPORT))
    expect(refused.err).toEqual(['promote: TESTS_FAILED: 2 of 4 tests failed (--force promotes without running them)'])

    answer = { status: 200, body: { status: 'success', data: [] } }
    const forced = await cli(['promote', '--from', 'feat-x', '--force', '--api', url, '--admin-token', 't'])
    expect(forced.code).toBe(0)
    expect(asked.map((a) => a.url)).toEqual(['/api/labels/feat-x/promote?force=true'])
  })
})

describe('test through a deployment', () => {
  const passing: TestReport = {
    passed: 1,
    failed: 0,
    skipped: 0,
    errors: 0,
    cases: [{ prompt: 'a.b', name: 'ok', result: 'pass', failures: [], ms: 1 }],
  }

  it("runs one prompt's cases through its route, and several (or all) through /api/test", async () => {
    answer = { status: 200, body: { status: 'success', data: passing } }
    const one = await cli(['test', 'a.b', '--label', 'feat-x', '--url', url, '--token', 'read'])
    expect(one.code).toBe(0)
    expect(asked).toEqual([{ method: 'POST', url: '/api/prompts/a.b/test?label=feat-x', body: '{}' }])
    expect(one.out).toEqual(reportLines(passing))

    await cli(['test', 'a.b', 'c.d'], { AI_PROMPT_SHELL_URL: url })
    expect(asked).toEqual([{ method: 'POST', url: '/api/test', body: '{"ids":["a.b","c.d"]}' }])
    await cli(['test', '--url', url])
    expect(asked).toEqual([{ method: 'POST', url: '/api/test', body: '{}' }])
  })

  it('exits 1 on a failure or an error, prints the report with --json, and appends Markdown to --summary', async () => {
    answer = { status: 200, body: { status: 'success', data: REPORT } }
    const dir = await folder({})
    const summary = join(dir, 'summary.md')
    const { code, out } = await cli(['test', '--json', '--url', url, '--label', 'feat-x', '--summary', summary])
    expect(code).toBe(1)
    expect(JSON.parse(out.join('\n'))).toEqual(REPORT)
    expect(await readFile(summary, 'utf8')).toBe(reportMarkdown(REPORT, 'Prompt tests of label feat-x'))
  })

  it("says the service's error, exit 1, and misuses exit 2 with no request", async () => {
    answer = { status: 404, body: { status: 'error', code: 'NOT_FOUND', message: "prompt 'x.y' does not exist" } }
    expect(await cli(['test', 'x.y', '--url', url])).toMatchObject({
      code: 1,
      err: ["test: NOT_FOUND: prompt 'x.y' does not exist"],
    })
    expect((await cli(['test', '--file', 'examples', '--url', url])).code).toBe(2)
    expect((await cli(['test', '--label', 'Not A Label', '--url', url])).code).toBe(2)
    expect((await cli(['test', '--force', '--url', url])).code).toBe(2)
    expect(asked).toEqual([])
  })
})

describe('test --file', () => {
  const prompt = {
    name: 't.p',
    description: 'a prompt with cases',
    prompt: 'Review this {{.vscode.programming_language}} code: {{.args.code}}',
    tests: [
      { name: 'names the language', args: { code: 'x' }, assert: [{ type: 'contains', value: 'go code' }] },
      {
        name: 'its own language',
        args: { code: 'x' },
        variables: { vscode: { programming_language: 'rust' } },
        assert: [{ type: 'contains', value: 'go code' }],
      },
      {
        name: 'needs the code',
        args: {},
        assert: [{ type: 'fails-with', value: 'MISSING_VARIABLE' }],
      },
      { name: 'answers', args: { code: 'x' }, assert_answer: [{ type: 'contains', value: 'fine' }] },
    ],
  }

  it("runs the files' cases with no server: a case's variables change its render, answer assertions are skipped", async () => {
    const root = await folder({
      'templates/t/p.json': JSON.stringify(prompt),
      'environs/vscode.json': JSON.stringify({ programming_language: 'go' }),
    })
    const { code, out } = await cli(['test', '--file', root, '--json'])
    expect(code).toBe(1)
    const report = JSON.parse(out.join('\n')) as TestReport
    expect(report.cases.map((c) => [c.name, c.result])).toEqual([
      ['names the language', 'pass'],
      ['its own language', 'fail'],
      ['needs the code', 'pass'],
      ['answers', 'skipped'],
    ])
    expect(report.cases[1]?.failures).toEqual([
      { assert: 'contains', expected: 'go code', actual: 'Review this rust code: x' },
    ])
    expect(asked).toEqual([])
  })

  it('runs only the prompts named, and runs nothing when the files have errors', async () => {
    const root = await folder({
      'templates/t/p.json': JSON.stringify({ ...prompt, tests: prompt.tests.slice(0, 1) }),
      'templates/t/q.json': JSON.stringify({ ...prompt, name: 't.q' }),
      'environs/vscode.json': JSON.stringify({ programming_language: 'go' }),
    })
    const named = await cli(['test', 't.p', '--file', root])
    expect(named.code).toBe(0)
    expect(named.out).toEqual([
      expect.stringMatching(/^pass {5}t\.p {2}"names the language" {2}\d+ ms$/),
      '1 case: 1 passed, 0 failed, 0 skipped, 0 errors',
    ])

    const missing = await cli(['test', 't.nope', '--file', root])
    expect(missing).toMatchObject({ code: 1, out: [], err: ["test: NOT_FOUND: prompt 't.nope' does not exist"] })

    const broken = await folder({ 'templates/t/p.json': '{"name": ' })
    const { code, err } = await cli(['test', '--file', broken])
    expect(code).toBe(1)
    expect(err.at(-1)).toBe('test: the files have errors: no test was run')
  })
})
