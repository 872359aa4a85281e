import { schemaProblems, validateExtension, validatePrompt, validateTool } from '../lib/catalog'
import type { ExtensionRecord, Prompt, PromptRecord } from '../lib/catalog'
import { compilePrompt } from '../lib/render'
import { keySuffix, keyToFunc, keyToPath } from '../lib/store/keys'
import { ParseError } from '../lib/template'
import type { ValidateFunction } from 'ajv'
import type { Problem, RecordFile } from './files'

/** What `validate` found: errors fail it, warnings only inform. */
export interface Findings {
  errors: Problem[]
  warnings: Problem[]
}

const SCHEMAS: Partial<Record<RecordFile['kind'], ValidateFunction>> = {
  extensions: validateExtension,
  templates: validatePrompt,
  tools: validateTool,
}

/**
 * Checks record files as the service would read them: each against its JSON
 * Schema (jsonschema/), every template parsed by our engine, and the keys
 * and tool function names the service must be able to tell apart.
 */
export function checkRecords(records: readonly RecordFile[]): Findings {
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
  }
  const functions = [...tools.keys(), 'dict']

  for (const record of records) {
    const validate = SCHEMAS[record.kind]
    if (!validate) continue
    const problems = schemaProblems(validate, record.value)
    for (const { path, problem } of problems) findings.errors.push({ file: record.file, where: path, message: problem })
    if (problems.length > 0) continue
    for (const { prompt, path } of promptsOf(record, findings))
      checkTemplates(record.file, prompt, path, functions, findings)
  }
  return findings
}

/** The prompts a valid record holds, each with its JSON path in the file. */
function promptsOf(record: RecordFile, findings: Findings): { prompt: Prompt; path: string }[] {
  const { file, key } = record
  if (record.kind === 'templates') {
    const prompt: Prompt = {
      id: keyToPath('templates', key),
      origin: 'direct',
      key,
      record: record.value as PromptRecord,
    }
    return [{ prompt, path: '$' }]
  }
  if (record.kind !== 'extensions') return []
  const extension = record.value as ExtensionRecord
  if (extension.extensionType !== 'prompt') {
    findings.warnings.push({
      file,
      message: `extensionType is '${extension.extensionType}': the service serves only 'prompt' extensions`,
    })
  }
  const id = keyToPath('extensions', key)
  return (extension.contributes.prompts ?? []).map((p, i) => ({
    prompt: { id: `${id}.${p.name}`, origin: 'extension', key, record: p },
    path: `$.contributes.prompts[${i}]`,
  }))
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
      compilePrompt(prompt, known)
    } catch (e) {
      if (!(e instanceof ParseError)) throw e
      const place = templatePath(path, prompt, e.templateName)
      const message = known ? `${e.message} (not one of the tools given)` : e.message
      list.push({ file, where: `${place}:${e.line}:${e.column}`, message })
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
