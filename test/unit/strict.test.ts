// The strict check (lib/catalog/strict.ts): each rule on its own, with a
// prompt that breaks it and one that keeps it; what the CLI reads for it;
// and `validate --strict` given nowhere to read the catalogue.
import { describe, expect, it } from 'vitest'
import { catalogueNeeds, filePrompts, strictFindings, withRecords } from '../../lib/catalog'
import type { Catalogue, FilePrompt, PromptRecord, RecordFile } from '../../lib/catalog'
import { main } from '../../cli/index'

const catalogue: Catalogue = {
  variables: {
    vscode: { programming_language: 'go', frameworks: ['gin'], settings: { tabs: null } },
    codebase: { current_project: { name: 'shop' } },
  },
  tools: new Map([
    ['codebase_lookup_ref', ['symbol', 'limit']],
    ['greeter_greet', []],
  ]),
}

function promptRecord(record: PromptRecord, file = 'templates/t/p.json'): RecordFile {
  return { file, kind: 'templates', key: 'shenma:templates:t:p', value: record }
}

function promptOf(record: PromptRecord): FilePrompt {
  return filePrompts([promptRecord(record)])[0] as FilePrompt
}

/** The errors of a prompt `text` (declaring `parameters`), each as `where: message`. */
function errorsOf(text: string, parameters: string[] = [], against: Catalogue = catalogue): string[] {
  const prompt = promptOf({ prompt: text, parameters: parameters.map((name) => ({ name, type: 'string' })) })
  const { errors, warnings } = strictFindings(prompt, against)
  expect(warnings).toEqual([])
  return errors.map((e) => `${e.where}: ${e.message}`)
}

describe('the strict check of a prompt', () => {
  it('passes what exists: variables, declared args, builtins, helpers, dict and tools', () => {
    const text =
      '{{.vscode.programming_language}} {{range .vscode.frameworks}}{{.}}{{end}} {{.codebase.current_project.name}}\n' +
      '{{.args.code}} {{len .args.code.lines}} {{toJson .vscode}} {{codebase_lookup_ref .args.code 5}}\n' +
      '{{codebase_lookup_ref (dict "symbol" "x")}} {{greeter_greet}} {{.vscode.settings.tabs}}'
    expect(errorsOf(text, ['code'])).toEqual([])
  })

  it('names a tool declared for the model that is not in the catalogue', () => {
    const prompt = promptOf({ prompt: 'Rate it.', tools: ['codebase_lookup_ref', 'codebase_gone'] })
    expect(strictFindings(prompt, catalogue).errors).toEqual([
      { file: 'templates/t/p.json', where: '$.tools[1]', message: 'declares codebase_gone, which is not a tool' },
    ])
  })

  it('names a variable that does not exist, at its line and column', () => {
    expect(errorsOf('Hello\n{{.nope.x}}')).toEqual([
      '$.prompt:2:7: reads .nope.x, but there is no shared variable nope',
    ])
    expect(errorsOf('{{.vscode.nope}}')).toEqual([
      '$.prompt:1:9: reads .vscode.nope, but there is no shared variable vscode.nope',
    ])
  })

  it('names a read into a value that is not an object', () => {
    expect(errorsOf('{{.vscode.programming_language.major}} {{.vscode.frameworks.first}}')).toEqual([
      '$.prompt:1:9: reads .vscode.programming_language.major, but vscode.programming_language is a string, which has no field major',
      '$.prompt:1:48: reads .vscode.frameworks.first, but vscode.frameworks is an array, which has no field first',
    ])
    expect(errorsOf('{{.vscode.settings.tabs.width}}')).toEqual([
      '$.prompt:1:9: reads .vscode.settings.tabs.width, but vscode.settings.tabs is null, which has no field width',
    ])
  })

  it('counts reads in branches: under missingkey=error they fail whenever they run', () => {
    expect(errorsOf('{{if .args.x}}{{.nope}}{{end}}', ['x'])).toEqual([
      '$.prompt:1:16: reads .nope, but there is no shared variable nope',
    ])
  })

  it('lets a with over an index result guard what it reads, but not what lies below a present value', () => {
    expect(errorsOf('{{with index . "optional"}}{{.anything}}{{end}}')).toEqual([])
    expect(errorsOf('{{with index .vscode "settings"}}{{.spaces}}{{end}}')).toEqual([
      '$.prompt:1:35: reads .vscode.settings.spaces, but there is no shared variable vscode.settings.spaces',
    ])
  })

  it('names an arg that is not a declared parameter, and checks no deeper', () => {
    expect(errorsOf('{{.args.q}} {{.args.code.anything}} {{.args}}', ['code'])).toEqual([
      '$.prompt:1:7: .args.q is not a declared parameter',
    ])
  })

  it('names a function that is not a builtin, a helper, dict or a tool', () => {
    expect(errorsOf('{{.vscode | no_such_tool}}\n{{printf "%v" also_missing}}')).toEqual([
      '$.prompt:1:12: calls no_such_tool, which is not a builtin, a helper or a tool',
      '$.prompt:2:14: calls also_missing, which is not a builtin, a helper or a tool',
    ])
  })

  it('names a tool given more positional operands than it declares, a piped value counted', () => {
    expect(
      errorsOf('{{codebase_lookup_ref "a" 1 2}}\n{{3 | codebase_lookup_ref "a" 1}}\n{{greeter_greet "a" "b"}}'),
    ).toEqual([
      '$.prompt:1:2: passes 3 arguments to codebase_lookup_ref, which declares 2 (symbol, limit)',
      '$.prompt:2:6: passes 3 arguments to codebase_lookup_ref, which declares 2 (symbol, limit)',
      '$.prompt:3:2: passes 2 arguments to greeter_greet, which declares none',
    ])
    // One operand may be a map of named arguments, whatever the tool declares.
    expect(errorsOf('{{greeter_greet (dict "name" "x")}} {{codebase_lookup_ref "a" 1}}')).toEqual([])
  })

  it('names each missing thing once, where it is first used', () => {
    expect(errorsOf('{{.nope.a}}\n{{.nope.b}} {{f}} {{f}} {{.args.q}} {{.args.q}}')).toEqual([
      '$.prompt:1:7: reads .nope.a, but there is no shared variable nope',
      '$.prompt:2:14: calls f, which is not a builtin, a helper or a tool',
      '$.prompt:2:31: .args.q is not a declared parameter',
    ])
  })

  it('places what a defined template reads in its text, naming it, with the path its call gives', () => {
    const text = '{{define "sig"}}\n-- {{.name}} {{sign .}}{{end}}{{template "sig" .codebase}}'
    expect(errorsOf(text)).toEqual([
      '$.prompt:2:5: in template "sig": reads .codebase.name, but there is no shared variable codebase.name',
      '$.prompt:2:15: in template "sig": calls sign, which is not a builtin, a helper or a tool',
    ])
  })

  it('names an unknown function in a template nothing calls: the service does not parse it either', () => {
    expect(errorsOf('{{define "unused"}}{{.nope}}{{gone}}{{end}}ok')).toEqual([
      '$.prompt:1:30: in template "unused": calls gone, which is not a builtin, a helper or a tool',
    ])
  })

  it('places the problems of messages in their own text, in order', () => {
    const prompt = promptOf({
      messages: [
        { role: 'system', content: 'x\n{{.nope}}' },
        { role: 'user', content: '{{.args.q}}' },
      ],
    })
    expect(strictFindings(prompt, catalogue).errors.map((e) => e.where)).toEqual([
      '$.messages[0].content:2:2',
      '$.messages[1].content:1:7',
    ])
  })

  it('places the prompts an extension contributes by their index', () => {
    const extension: RecordFile = {
      file: 'extensions/e.json',
      kind: 'extensions',
      key: 'shenma:extensions:e',
      value: {
        name: 'e',
        version: '1',
        extensionType: 'prompt',
        contributes: {
          prompts: [
            { name: 'a', prompt: 'fine' },
            { name: 'b', prompt: '{{.nope}}' },
          ],
        },
      },
    }
    const prompts = filePrompts([extension])
    expect(prompts.map((p) => [p.path, p.parsed.templates[0]?.name])).toEqual([
      ['$.contributes.prompts[0]', 'e.a'],
      ['$.contributes.prompts[1]', 'e.b'],
    ])
    expect(strictFindings(prompts[1] as FilePrompt, catalogue).errors).toEqual([
      {
        file: 'extensions/e.json',
        where: '$.contributes.prompts[1].prompt:1:2',
        message: 'reads .nope, but there is no shared variable nope',
      },
    ])
  })

  it('warns, and names nothing, when the analysis gives up on the templates', () => {
    let text = ''
    for (let i = 0; i < 22; i++)
      text += `{{define "d${i}"}}{{template "d${i + 1}" .a}}{{template "d${i + 1}" .b}}{{end}}`
    const prompt = promptOf({ prompt: `${text}{{define "d22"}}{{.leaf}}{{end}}{{template "d0" .nope}}` })
    const { errors, warnings } = strictFindings(prompt, catalogue)
    expect(errors).toEqual([])
    expect(warnings.map((w) => w.message)).toEqual([
      'calls its templates in ways too intricate to check strictly (the analysis gave up)',
    ])
  })
})

describe('the catalogue of a strict check', () => {
  it('counts the tools and environs of the files, as they are published together', () => {
    const records: RecordFile[] = [
      {
        file: 'tools/m/t.json',
        kind: 'tools',
        key: 'shenma:tools:m:t',
        value: { name: 't', module: 'm', type: 'restful', parameters: [{ name: 'one', type: 'string' }] },
      },
      { file: 'environs/fresh/a.json', kind: 'environs', key: 'shenma:environs:fresh:a', value: 1 },
      { file: 'environs/vscode/extra.json', kind: 'environs', key: 'shenma:environs:vscode:extra', value: 'x' },
    ]
    const text = '{{m_t "a"}} {{m_t "a" "b"}} {{.fresh.a}} {{.vscode.extra}} {{.vscode.programming_language}}'
    const both = withRecords(catalogue, records)
    expect(errorsOf(text, [], both)).toEqual(['$.prompt:1:14: passes 2 arguments to m_t, which declares 1 (one)'])
    expect(errorsOf(text, [], catalogue).map((e) => e.replace(/^.*?: /, ''))).toEqual([
      'calls m_t, which is not a builtin, a helper or a tool',
      'reads .fresh.a, but there is no shared variable fresh',
      'reads .vscode.extra, but there is no shared variable vscode.extra',
    ])
    // The catalogue given is left as it was.
    expect(catalogue.variables.vscode).not.toHaveProperty('extra')
  })

  it('is read for the top-level names templates read, and for functions called with operands to spare', () => {
    const prompts = filePrompts([
      promptRecord({ prompt: '{{.vscode.x}} {{.args.q}} {{.b}} {{t1 1 2}} {{t2 1}} {{printf "%v %v" 1 2}}' }),
      promptRecord({ messages: [{ role: 'user', content: '{{.a.y}}{{with .c}}{{.d}}{{end}}{{.x | t3 1}}' }] }),
    ])
    expect(catalogueNeeds(prompts)).toEqual({
      variables: ['a', 'b', 'c', 'vscode', 'x'],
      functions: ['printf', 't1', 't3'],
    })
  })
})

describe('validate --strict', () => {
  async function validate(args: string[], env: Record<string, string> = {}) {
    const err: string[] = []
    const code = await main(['validate', ...args], { out: () => {}, err: (l) => err.push(l), env })
    return { code, err }
  }

  it('is a misuse without a catalogue to read, saying what to give', async () => {
    const { code, err } = await validate(['--strict', 'examples'])
    expect(code).toBe(2)
    expect(err.join('\n')).toMatch(/^validate --strict: give a deployment's --url .*UPSTASH_REDIS_REST_URL/)
  })

  it('is a misuse with a label that is no label', async () => {
    const { code, err } = await validate([
      '--strict',
      '--url',
      'http://127.0.0.1:1',
      '--label',
      'Not A Label',
      'examples',
    ])
    expect(code).toBe(2)
    expect(err.join('\n')).toMatch(/--label 'Not A Label' is not a label/)
  })

  it('fails, naming where, when the catalogue cannot be read', async () => {
    const { code, err } = await validate(['--strict', '--url', 'http://127.0.0.1:1', 'examples'])
    expect(code).toBe(1)
    expect(err).toContainEqual(
      expect.stringMatching(/^error: http:\/\/127\.0\.0\.1:1 \(API\): cannot read the catalogue: UNREACHABLE/),
    )
  })
})
