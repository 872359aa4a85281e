// `ai-prompt-shell validate`: the examples pass; each kind of broken file is
// named with its file, the JSON path or template line and column, and fails
// the run.
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { readRecordFiles } from '../../cli/files'
import { main } from '../../cli/index'
import { folder } from '../support/folder'

async function validate(...paths: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(['validate', ...paths], { out: (l) => out.push(l), err: (l) => err.push(l), env: {} })
  return { code, out, err }
}

describe('validate', () => {
  it('passes the examples, through npx as authors run it', async () => {
    const { stdout } = await promisify(execFile)('npx', ['ai-prompt-shell', 'validate', 'examples'])
    expect(stdout).toBe('11 files: 0 errors, 0 warnings\n')
  })

  it('names the file and JSON path of a schema error, and exits 1', async () => {
    const root = await folder({
      'tools/m/t.json': JSON.stringify({ name: 't', module: 'm', type: 'ftp', description: 'x', parameters: {} }),
    })
    const { code, err } = await validate(root)
    expect(code).toBe(1)
    expect(err).toContain(
      `error: ${join(root, 'tools/m/t.json')}: $.type: must be equal to one of the allowed values: "restful", "grpc", "mcp"`,
    )
  })

  it("checks a grpc tool's descriptor: it decodes, defines the service and the method, and the method is unary", async () => {
    const example = JSON.parse(await readFile('examples/tools/greeter/greet.json', 'utf8')) as { grpc: object }
    const grpc = (change: object) => JSON.stringify({ ...example, grpc: { ...example.grpc, ...change } })
    const streaming = await readFile('test/support/grpc/greet.binpb')
    const root = await folder({
      'tools/greeter/greet.json': grpc({}),
      'tools/greeter/garbled.json': grpc({ descriptor: Buffer.from('not a descriptor').toString('base64') }),
      'tools/greeter/missing.json': grpc({ method: 'Wave' }),
      'tools/greeter/other.json': grpc({ service: 'greet.v2.GreetService' }),
      'tools/greeter/watch.json': grpc({ method: 'Watch', descriptor: streaming.toString('base64') }),
      'tools/greeter/web.json': grpc({ protocol: 'grpc-web', descriptor: undefined }),
    })
    const { code, err } = await validate(root)
    expect(code).toBe(1)
    const errors = err.filter((line) => line.startsWith('error:'))
    const at = (name: string) => `error: ${join(root, `tools/greeter/${name}.json`)}: `
    expect(errors).toEqual([
      expect.stringContaining(`${at('garbled')}$.grpc.descriptor: is not a base64 FileDescriptorSet that decodes: `),
      `${at('missing')}$.grpc.method: names Wave, which greet.v1.GreetService does not have (it has Greet)`,
      `${at('other')}$.grpc.service: names service greet.v2.GreetService, which the descriptor does not define`,
      `${at('watch')}$.grpc.method: names Watch, a server-streaming method: only unary methods can be called`,
      `${at('web')}$.grpc: must have required property 'descriptor'`,
    ])
  })

  it('names the template, its line and column, for a syntax error inside an extension', async () => {
    const extension = {
      name: 'x',
      version: '1.0.0',
      extensionType: 'prompt',
      contributes: {
        prompts: [
          {
            name: 'p',
            messages: [
              { role: 'system', content: 'ok' },
              { role: 'user', content: 'one\ntwo {{if}}' },
            ],
          },
        ],
      },
    }
    const root = await folder({ 'extensions/x.json': JSON.stringify(extension) })
    const { code, err } = await validate(root)
    expect(code).toBe(1)
    expect(err[0]).toBe(
      `error: ${join(root, 'extensions/x.json')}: $.contributes.prompts[0].messages[1].content:2:8: template: x.p.messages[1]:2: missing value for if`,
    )
  })

  it('reports JSON that does not parse, and a file whose key cannot be told', async () => {
    const root = await folder({ 'templates/a/b.json': '{"prompt": ', 'loose.json': '{"prompt": "x"}' })
    const { code, err } = await validate(root)
    expect(code).toBe(1)
    expect(err).toEqual([
      expect.stringMatching(/loose\.json: has no key: put it under a folder named extensions\//),
      expect.stringMatching(/templates\/a\/b\.json: is not valid JSON: /),
      '2 files: 2 errors, 0 warnings',
    ])
  })

  it('refuses two files with one key, and reads a file named twice once', async () => {
    const root = await folder({ 'environs/a/b.json': '1', 'environs/a:b.json': '2' })
    const twice = await validate(join(root, 'environs/a/b.json'), root)
    expect(twice.err.filter((l) => l.startsWith('error:'))).toEqual([
      `error: ${join(root, 'environs/a:b.json')}: its key shenma:environs:a:b is also the key of ${join(root, 'environs/a/b.json')}`,
    ])
    expect(twice.err.at(-1)).toBe('2 files: 1 error, 0 warnings')
  })

  it('warns, without failing, of a call to a function none of the given tools defines', async () => {
    const root = await folder({ 'templates/a/b.json': JSON.stringify({ prompt: 'x {{lookup "y"}} {{dict "k" 1}}' }) })
    const { code, err, out } = await validate(root)
    expect(code).toBe(0)
    expect(err).toEqual([
      `warning: ${join(root, 'templates/a/b.json')}: $.prompt:1:4: template: a.b:1: function "lookup" not defined (not one of the tools given)`,
    ])
    expect(out).toEqual(['1 file: 0 errors, 1 warning'])
  })

  it('warns of a tool whose key is not shenma:tools:{module}:{name}, since its id is then not {module}_{name}', async () => {
    const tool = {
      name: 'translate_zh_en',
      module: 'translator',
      type: 'restful',
      restful: { url: '/translate' },
      description: 'x',
      parameters: {},
    }
    const root = await folder({
      'tools/translate_zh_en.json': JSON.stringify(tool),
      'tools/translate/en_zh.json': JSON.stringify({ ...tool, name: 'en_zh', module: 'translate' }),
    })
    const { code, err } = await validate(join(root, 'tools/translate_zh_en.json'), join(root, 'tools/translate'))
    expect(code).toBe(0)
    expect(err).toEqual([
      `warning: ${join(root, 'tools/translate_zh_en.json')}: key shenma:tools:translate_zh_en is not shenma:tools:{module}:{name} (shenma:tools:translator:translate_zh_en), so its id 'translate_zh_en' is not {module}_{name} ('translator_translate_zh_en')`,
    ])
  })

  it('reports a schema error and the template errors of the same record in one run', async () => {
    const extension = {
      name: 'x',
      version: 1,
      extensionType: 'prompt',
      contributes: {
        prompts: [
          {
            name: 'p',
            messages: [
              { role: 'robot', content: '{{end}}' },
              { role: 'user', content: 7 },
            ],
          },
        ],
      },
    }
    const root = await folder({
      'templates/a/b.json': JSON.stringify({ prompt: 'x {{if}}', messages: [{ role: 'user', content: '{{.a' }] }),
      'extensions/x.json': JSON.stringify(extension),
    })
    const { code, err } = await validate(root)
    expect(code).toBe(1)
    // Files relative to the folder; template columns left out (what a column counts is the engine's to say).
    const lines = err.map((l) => l.replaceAll(`${root}/`, '').replace(/(\.content|\.prompt):\d+:\d+:/, '$1:L:C:'))
    expect(lines).toEqual([
      'error: extensions/x.json: $.version: must be string',
      'error: extensions/x.json: $.contributes.prompts[0].messages[0].role: must be equal to one of the allowed values: "system", "user", "assistant"',
      'error: extensions/x.json: $.contributes.prompts[0].messages[1].content: must be string',
      'error: extensions/x.json: $.contributes.prompts[0].messages[0].content:L:C: template: x.p.messages[0]:1: unexpected {{end}}',
      'error: templates/a/b.json: $: must match exactly one schema in oneOf',
      'error: templates/a/b.json: $.prompt:L:C: template: a.b:1: missing value for if',
      'error: templates/a/b.json: $.messages[0].content:L:C: template: a.b.messages[0]:1: unclosed action',
      '2 files: 7 errors, 0 warnings',
    ])
  })
})

describe('bare-text environs', () => {
  it('reads any file below environs/ as text, keyed by its path without the extension', async () => {
    const root = await folder({
      'environs/vscode/language.txt': 'go\n',
      'environs/vscode/version.txt': '1.0',
      'environs/vscode/notes': '{not json, and that is fine: it is text}',
      'environs/vscode/.DS_Store': 'x',
      'environs/vscode/frameworks.json': '["gin"]',
    })
    const { code, err, out } = await validate(root)
    expect(err).toEqual([])
    expect(out).toEqual(['4 files: 0 errors, 0 warnings'])
    expect(code).toBe(0)
    const files = ['frameworks.json', 'language.txt', 'notes', 'version.txt'].map((f) =>
      join(root, 'environs/vscode', f),
    )
    const { records } = await readRecordFiles(files)
    expect(records.map((r) => [r.key, r.value])).toEqual([
      ['shenma:environs:vscode:frameworks', ['gin']],
      ['shenma:environs:vscode:language', 'go'],
      ['shenma:environs:vscode:notes', '{not json, and that is fine: it is text}'],
      ['shenma:environs:vscode:version', '1.0'],
    ])
  })

  it('takes a .json file that is not JSON as its text, as the service does, with a warning; unless it opens like JSON', async () => {
    const root = await folder({ 'environs/a/b.json': 'go\n', 'environs/a/c.json': '{"unclosed": 1' })
    const { code, err } = await validate(root)
    expect(code).toBe(1)
    expect(err).toEqual([
      `error: ${join(root, 'environs/a/c.json')}: is not valid JSON (error at position 14)`,
      `warning: ${join(root, 'environs/a/b.json')}: is not JSON: its text is the value, as the service reads it (name it other than .json to say so)`,
      '2 files: 1 error, 1 warning',
    ])
    const { records } = await readRecordFiles([join(root, 'environs/a/b.json')])
    expect(records).toEqual([expect.objectContaining({ key: 'shenma:environs:a:b', value: 'go' })])
  })
})
