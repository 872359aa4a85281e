// `ai-prompt-shell render --file`: a prompt rendered from record files by the
// Worker's own pipeline, with no server (the only URL around answers
// nothing), its tools called under TOOLS_BASE_URL on a real HTTP server; and
// how the CLI says a misuse: one line and where the rest is said.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../cli/index'
import { folder } from '../support/folder'
import { startToolServer } from '../support/tool-server'
import type { ToolServer, ToolServerStats } from '../support/tool-server'

/** Nothing listens on port 1: a render that tried a server would fail. */
const NOWHERE = 'http://127.0.0.1:1'

let tools: ToolServer

beforeAll(async () => {
  tools = await startToolServer()
})

afterAll(async () => {
  await tools?.stop()
})

/** The CLI in this process, with `env` as its whole environment (no service URL that answers). */
async function cli(args: string[], env: Record<string, string> = {}) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: { AI_PROMPT_SHELL_URL: NOWHERE, ...env },
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

async function stats(group: string): Promise<ToolServerStats> {
  return (await (await fetch(`${tools.url}/__stats?group=${group}`)).json()) as ToolServerStats
}

/** A prompt calling a REST tool whose URL is relative (the tool server's echo of its GET), and the tool. */
async function toolFiles(group: string): Promise<string> {
  const tool = {
    name: 'echo',
    module: 'probe',
    type: 'restful',
    restful: { url: `/tools/echo?group=${group}`, method: 'GET' },
    description: 'Echoes the request',
    parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
  }
  const prompt = {
    name: 'calls',
    prompt: '{{with probe_echo .args.code}}{{.method}} {{.path}}{{else}}no answer{{end}} for {{.team.name}}',
    parameters: [{ name: 'code', type: 'string', required: true }],
  }
  return folder({
    'tools/probe/echo.json': JSON.stringify(tool),
    'templates/team/calls.json': JSON.stringify(prompt),
    'environs/team/name.txt': 'core\n',
  })
}

describe('render --file', () => {
  it('renders an example prompt from the examples folder, with no server', async () => {
    const { code, out, err } = await cli([
      'render',
      'evaluator.quick_review',
      '--file',
      'examples',
      '--args',
      '{"code": "x := 1"}',
    ])
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(out).toBe('Review this go code (frameworks: gin, gorm, gin-swagger) in one paragraph:\nx := 1')
  })

  it('calls a tool with a relative URL under TOOLS_BASE_URL, once, and explains the render on stderr', async () => {
    const dir = await toolFiles('cli-file')
    const args = [
      'render',
      'team.calls',
      '--file',
      join(dir, 'templates'),
      '--file',
      join(dir, 'tools'),
      '--file',
      join(dir, 'environs'),
    ]
    const { code, out, err } = await cli([...args, '--args', '{"code": "x"}', '--explain'], {
      TOOLS_BASE_URL: tools.url,
    })
    expect(code, err).toBe(0)
    expect(out).toBe('GET /tools/echo for core')
    expect((await stats('cli-file')).calls).toBe(1)
    const lines = err.split('\n')
    expect(lines[0]).toBe('explain: from 3 record files, with no server')
    expect(lines).toContain('  reads: args.code, team.name')
    expect(lines).toContain('  tools: probe_echo')
    expect(lines.some((l) => /^ {4}probe_echo: started at \d+ ms, took \d+ ms, ok$/.test(l))).toBe(true)
  })

  it('gives the warning the service gives for a relative tool URL without TOOLS_BASE_URL', async () => {
    const dir = await toolFiles('cli-nobase')
    const { code, out, err } = await cli(['render', 'team.calls', '--file', dir, '--args', '{"code": "x"}'])
    expect(err).toMatch(
      /^warning: TOOL_FAILED: its URL \/tools\/echo\?group=cli-nobase is relative and no base URL is configured \(TOOLS_BASE_URL/,
    )
    expect(out).toBe('no answer for core')
    expect(code).toBe(0)
    expect((await stats('cli-nobase')).calls).toBe(0)
  })

  it("fails with the engine's error for a prompt the files do not hold, and names a file's errors", async () => {
    const missing = await cli(['render', 'no.such', '--file', 'examples'])
    expect(missing.code).toBe(1)
    expect(missing.err).toMatch(/^NOT_FOUND: /)

    const broken = await folder({ 'templates/a/b.json': JSON.stringify({ prompt: 'x {{if}}' }) })
    const bad = await cli(['render', 'a.b', '--file', broken])
    expect(bad.code).toBe(1)
    expect(bad.err.split('\n')).toEqual([
      expect.stringMatching(
        /^error: .*templates\/a\/b\.json: \$\.prompt:1:\d+: template: a\.b:1: missing value for if$/,
      ),
      'render: the files have errors: nothing was rendered',
    ])
  })

  it("refuses a server's option with --file, in one line", async () => {
    for (const option of [
      ['--url', NOWHERE],
      ['--label', 'feat-x'],
      ['--version', '2'],
    ]) {
      const { code, err } = await cli(['render', 'evaluator.quick_review', '--file', 'examples', ...option])
      expect(code).toBe(2)
      expect(err).toBe(
        `render: --file renders from files, with no server: ${option[0]} is a server's (run 'ai-prompt-shell render --help' for its usage)`,
      )
    }
  })
})

describe('misuse', () => {
  it('says an unknown option in one line with a hint, exit 2, through npx as authors run it', async () => {
    const failed = await promisify(execFile)('npx', ['ai-prompt-shell', 'render', 'a.b', '--lable', 'x']).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    )
    expect('code' in failed && failed.code).toBe(2)
    expect(failed.stdout).toBe('')
    expect(failed.stderr.replace(/^npm warn .*\n/gm, '')).toBe(
      "render: there is no option --lable (run 'ai-prompt-shell render --help' for its usage)\n",
    )
  }, 30_000)

  it("refuses another command's option, an option without its value, a command that is none, each in one line", async () => {
    const cases: [string[], string][] = [
      [
        ['render', 'a.b', '--dry-run'],
        "render: takes no --dry-run (run 'ai-prompt-shell render --help' for its usage)",
      ],
      [
        ['publish', 'examples', '--label'],
        "publish: --label needs a value (run 'ai-prompt-shell publish --help' for its usage)",
      ],
      [
        ['render', 'a.b', '--explain=yes'],
        "render: --explain takes no value (run 'ai-prompt-shell render --help' for its usage)",
      ],
      [['frob'], "ai-prompt-shell: there is no command 'frob' (run 'ai-prompt-shell --help' for the commands)"],
      [['--bogus'], "ai-prompt-shell: there is no option --bogus (run 'ai-prompt-shell --help' for the commands)"],
      [
        ['render', 'a.b', '--version', 'latest'],
        expect.stringMatching(/^render: --version 'latest' is not a version/) as unknown as string,
      ],
    ]
    for (const [args, said] of cases) {
      const { code, out, err } = await cli(args)
      expect(code, args.join(' ')).toBe(2)
      expect(out, args.join(' ')).toBe('')
      expect(err, args.join(' ')).toEqual(said)
    }
  })

  it("prints the usage for --help, and one command's for `<command> --help`", async () => {
    const all = await cli(['--help'])
    expect(all.code).toBe(0)
    expect(all.out).toMatch(/^usage: ai-prompt-shell <command> \[options\]\n/)
    for (const command of ['validate', 'publish', 'versions', 'rollback', 'promote', 'render']) {
      expect(all.out).toMatch(new RegExp(`^ {2}${command} `, 'm'))
    }
    const render = await cli(['render', '--help'])
    expect(render.code).toBe(0)
    expect(render.out).toMatch(/^ {2}render <prompt_id> --file /m)
    expect(render.out).not.toMatch(/^ {2}publish /m)
  })
})
