import { normalizeParameters } from '../catalog'
import type { Message, Prompt, PromptRecord } from '../catalog'
import { ServiceError } from '../errors'
import { ParseError, mergeAnalyses, parse } from '../template'
import type { Analysis, Template } from '../template'
import { argsChecker } from './args'
import type { Args } from './args'

/** A prompt made ready to render: its templates parsed, what they read, and its args checker. */
export interface CompiledPrompt {
  /** One template for a `prompt`; one per message, in one template set, for `messages`. */
  readonly templates: readonly Template[]
  /** The messages' roles; undefined for a `prompt`. */
  readonly roles: readonly Message['role'][] | undefined
  readonly analysis: Analysis
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

/**
 * Parses a prompt's templates and makes its args checker, uncached.
 * `functions` are the names templates may call besides the builtins;
 * undefined leaves calls unchecked (Go's SkipFuncCheck), for checking a
 * prompt before its tools are known.
 */
export function compilePrompt(prompt: Prompt, functions?: readonly string[]): CompiledPrompt {
  const { prompt: text, messages, parameters } = prompt.record
  const checkArgs = argsChecker(normalizeParameters(parameters))
  if (messages === undefined) {
    const template = parse(prompt.id, text ?? '', { functions })
    return { templates: [template], roles: undefined, analysis: template.analysis, checkArgs }
  }
  // All messages share one template set: a {{define}} in one is usable in the others, and, as in one
  // text, a later definition wins. The last message is parsed last, so they are parsed in order.
  const names = messages.map((_, i) => `${prompt.id}.messages[${i}]`)
  const last = messages.length - 1
  const set = parse(names[last] as string, messages[last]?.content ?? '', {
    functions,
    templates: Object.fromEntries(messages.slice(0, last).map((m, i) => [names[i], m.content])),
  })
  const templates = names.map((name) => set.lookup(name) as Template)
  return {
    templates,
    roles: messages.map((m) => m.role),
    analysis: mergeAnalyses(templates.map((t) => t.analysis)),
    checkArgs,
  }
}
