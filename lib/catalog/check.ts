import type { ValidateFunction } from 'ajv'
import { keySuffix, keyToFunc, keyToPath, kindPrefix } from '../store/keys'
import type { Kind } from '../store/keys'
import { HELPER_NAMES, ParseError } from '../template'
import { grpcProblems } from './grpc'
import { parsePrompt } from './parse'
import { recordSchemaProblems } from './record-schemas'
import type { Prompt } from './prompts'
import type { GrpcToolRecord, PromptRecord } from './types'
import { schemaProblems } from './validate'
import { validateExtension, validatePrompt, validateTool } from './validators.generated'

/** A record to check, with the key it is published under, and where it came from (a file, a request body). */
export interface RecordFile {
  file: string
  kind: Kind
  key: string
  value: unknown
}

/** Something wrong with a record: where in it (a JSON path, maybe with a template line and column), and what. */
export interface Problem {
  file: string
  where?: string
  message: string
  /** The warning of a call to a function none of the given tools defines, which a check against the catalogue settles. */
  unknownFunction?: true
}

/** What `validate` found: errors fail it, warnings only inform. */
export interface Findings {
  errors: Problem[]
  warnings: Problem[]
}

/** What the service that will serve the records allows, when the check knows it (a write does). */
export interface CheckOptions {
  /** TEST_MAX_CASES: the cases a prompt may keep. */
  maxCases?: number | undefined
}

const VALIDATORS: Partial<Record<RecordFile['kind'], ValidateFunction>> = {
  extensions: validateExtension,
  templates: validatePrompt,
  tools: validateTool,
}

/**
 * Checks records as the service would read them (the CLI's `validate`, and
 * every write through the API): each against its JSON
 * Schema (jsonschema/) and a grpc tool's descriptor, every template parsed by our engine, and the keys
 * and tool function names the service must be able to tell apart. A record
 * that fails its schema still has its templates parsed, so one run reports
 * every problem of a file.
 */
export async function checkRecords(records: readonly RecordFile[], options: CheckOptions = {}): Promise<Findings> {
  const findings: Findings = { errors: [], warnings: [] }
  const tools = new Map<string, RecordFile>()
  const keys = new Map<string, string>()
  for (const record of records) {
    const { file, kind, key } = record
    const other = keys.get(key)
    if (other !== undefined) findings.errors.push({ file, message: `its key ${key} is also the key of ${other}` })
    keys.set(key, file)
    const dotted = (keySuffix(kind, key) ?? '').split(':').find((segment) => segment.includes('.'))
    if (dotted !== undefined)
      findings.errors.push({ file, message: `key ${key} has a '.' inside a key segment, so no id can name it` })
    if (kind !== 'tools') continue
    const id = keyToFunc(key)
    const holder = tools.get(id)
    if (holder) findings.errors.push({ file, message: `its function name '${id}' is already taken by ${holder.file}` })
    else tools.set(id, record)
    checkToolKey(record, id, findings)
    checkToolName(record, id, findings)
  }
  const functions = [...tools.keys(), 'dict']

  for (const record of records) {
    const validate = VALIDATORS[record.kind]
    if (!validate) continue
    const problems = schemaProblems(validate, record.value)
    // What the schema cannot see, once it holds: the JSON Schemas the record holds, a grpc tool's descriptor, service and method.
    if (problems.length === 0) problems.push(...recordSchemaProblems(record.kind, record.value, options.maxCases))
    if (problems.length === 0 && record.kind === 'tools' && fieldsOf(record.value).type === 'grpc')
      problems.push(...(await grpcProblems(record.value as GrpcToolRecord)))
    for (const { path, problem } of problems) findings.errors.push({ file: record.file, where: path, message: problem })
    for (const { prompt, path } of promptsOf(record, findings))
      checkTemplates(record.file, prompt, path, functions, findings)
  }
  return findings
}

type Fields = Record<string, unknown>

/** A record's fields; none when it is not a JSON object. */
function fieldsOf(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {}
}

/**
 * The README's rule: a tool's key is `shenma:tools:{module}:{name}`, so its
 * id is `{module}_{name}`. Another key still works (the id comes from the
 * key), hence a warning: callers reading the record would guess another id.
 */
function checkToolKey({ file, key, value }: RecordFile, id: string, findings: Findings): void {
  const { module, name } = fieldsOf(value)
  if (typeof module !== 'string' || typeof name !== 'string' || module === '' || name === '') return
  const expected = `${kindPrefix('tools')}${module}:${name}`
  if (key === expected) return
  findings.warnings.push({
    file,
    message: `key ${key} is not shenma:tools:{module}:{name} (${expected}), so its id '${id}' is not {module}_{name} ('${module}_${name}')`,
  })
}

/** What every template may call besides the tools: the service's dict, and the engine's helpers. */
const PROVIDED: ReadonlySet<string> = new Set(['dict', ...HELPER_NAMES])

/**
 * A tool named like a function every template has takes its place, as a
 * template's own functions come before the others in Go: valid, but hardly
 * what a template calling `upper` or `dict` means. Hence a warning.
 */
function checkToolName({ file }: RecordFile, id: string, findings: Findings): void {
  if (!PROVIDED.has(id)) return
  const provided = id === 'dict' ? "the service's function dict" : `the template helper ${id}`
  findings.warnings.push({
    file,
    message: `its function name '${id}' is also ${provided}: templates calling ${id} get this tool instead`,
  })
}

/**
 * The templates of a record, valid against its schema or not: each prompt
 * it holds, made of the template texts that are strings (a `prompt`, and
 * `messages`, both when a broken record has both), with the JSON path of the
 * prompt in the file.
 */
function promptsOf(record: RecordFile, findings: Findings): { prompt: Prompt; path: string }[] {
  const { file, key } = record
  const fields = fieldsOf(record.value)
  if (record.kind === 'templates') {
    const id = keyToPath('templates', key)
    return templatesOf(fields).map((templates) => ({
      prompt: { id, origin: 'direct', key, record: templates },
      path: '$',
    }))
  }
  if (record.kind !== 'extensions') return []
  if (typeof fields.extensionType === 'string' && fields.extensionType !== 'prompt') {
    findings.warnings.push({
      file,
      message: `extensionType is '${fields.extensionType}': the service serves only 'prompt' extensions`,
    })
  }
  const extension = keyToPath('extensions', key)
  const prompts = fieldsOf(fields.contributes).prompts
  return (Array.isArray(prompts) ? prompts : []).flatMap((value: unknown, i) => {
    const contributed = fieldsOf(value)
    const id = `${extension}.${typeof contributed.name === 'string' ? contributed.name : `prompts[${i}]`}`
    return templatesOf(contributed).map((templates) => ({
      prompt: { id, origin: 'extension' as const, key, record: templates },
      path: `$.contributes.prompts[${i}]`,
    }))
  })
}

/**
 * A prompt record's template texts, as records holding nothing else: its
 * `prompt` when it is a string, its `messages` when they are a list. A
 * message whose content is not a string is parsed as empty, so the others
 * keep their names (`messages[N]`) for the errors.
 */
function templatesOf(fields: Fields): PromptRecord[] {
  const templates: PromptRecord[] = []
  if (typeof fields.prompt === 'string') templates.push({ prompt: fields.prompt })
  if (Array.isArray(fields.messages)) {
    const messages = fields.messages.map((value: unknown) => {
      const { content } = fieldsOf(value)
      // Roles play no part in parsing; the schema judges them.
      return { role: 'user' as const, content: typeof content === 'string' ? content : '' }
    })
    templates.push({ messages })
  }
  return templates
}

/**
 * Parses a prompt's templates: a syntax error is an error; a call of a
 * function that none of the given tools defines is a warning, since the tool
 * may already be published.
 */
function checkTemplates(
  file: string,
  prompt: Prompt,
  path: string,
  functions: readonly string[],
  findings: Findings,
): void {
  for (const [list, known] of [
    [findings.errors, undefined],
    [findings.warnings, functions],
  ] as const) {
    try {
      parsePrompt(prompt, known)
    } catch (e) {
      if (!(e instanceof ParseError)) throw e
      const place = templatePath(path, prompt, e.templateName)
      const where = `${place}:${e.line}:${e.column}`
      list.push(
        known
          ? { file, where, message: `${e.message} (not one of the tools given)`, unknownFunction: true }
          : { file, where, message: e.message },
      )
      return
    }
  }
}

/** The JSON path of the template text a parse error is in: `prompt`, or the content of message N. */
function templatePath(path: string, prompt: Prompt, templateName: string): string {
  const message = /\.messages\[(\d+)\]$/.exec(templateName)?.[1]
  if (prompt.record.messages && message !== undefined) return `${path}.messages[${message}].content`
  return `${path}.prompt`
}
