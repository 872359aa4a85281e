import { normalizeParameters, parsePrompt } from '../catalog'
import type { ParsedPrompt, Prompt, PromptRecord } from '../catalog'
import { ServiceError } from '../errors'
import { ParseError } from '../template'
import { argsChecker } from './args'
import type { Args } from './args'

/** A prompt made ready to render: its templates parsed, what they read, and its args checker. */
export interface CompiledPrompt extends ParsedPrompt {
  readonly checkArgs: (args: Args) => Args
}

/**
 * Parsed prompts, by record, then by id and the functions templates may
 * call. A record is one object for as long as its text in Redis is unchanged
 * (catalog/records.ts): a changed prompt is a new record, parsed at its next
 * use; an unchanged one never again, and finding it costs no serialisation.
 * A prompt that does not parse is remembered as its error.
 */
const compiled = new WeakMap<PromptRecord, Map<string, CompiledPrompt | ServiceError>>()

export function compile(prompt: Prompt, functions: readonly string[]): CompiledPrompt {
  let byCall = compiled.get(prompt.record)
  if (!byCall) compiled.set(prompt.record, (byCall = new Map()))
  const key = `${prompt.id}\n${functions.join('\n')}`
  let entry = byCall.get(key)
  if (!entry) {
    try {
      entry = compilePrompt(prompt, functions)
    } catch (e) {
      if (!(e instanceof ParseError)) throw e
      entry = new ServiceError('TEMPLATE_SYNTAX', e.message, {
        extra: { template: e.templateName, line: e.line, column: e.column },
      })
    }
    byCall.set(key, entry)
  }
  if (entry instanceof ServiceError) throw entry
  return entry
}

/** Parses a prompt's templates (see parsePrompt) and makes its args checker, uncached. */
export function compilePrompt(prompt: Prompt, functions?: readonly string[]): CompiledPrompt {
  return { ...parsePrompt(prompt, functions), checkArgs: argsChecker(normalizeParameters(prompt.record.parameters)) }
}
