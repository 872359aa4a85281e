import { mergeAnalyses, parse } from '../template'
import type { Analysis, ParseOptions, Template } from '../template'
import type { Prompt } from './prompts'
import type { Message } from './types'

/** A prompt's templates, parsed, and what they read. */
export interface ParsedPrompt {
  /** One template for a `prompt`; one per message, in one template set, for `messages`. */
  readonly templates: readonly Template[]
  /** The messages' roles; undefined for a `prompt`. */
  readonly roles: readonly Message['role'][] | undefined
  readonly analysis: Analysis
}

/**
 * Parses a prompt's templates (throws the template's ParseError), with the
 * helper functions every prompt may call (toJson, fence, ...: the template
 * README). `functions` are the names templates may call besides the builtins
 * and helpers (a tool named like a helper wins), or a predicate on names;
 * undefined leaves calls unchecked (Go's SkipFuncCheck), for checking a
 * prompt before its tools are known.
 */
export function parsePrompt(prompt: Prompt, functions?: ParseOptions['functions']): ParsedPrompt {
  const { prompt: text, messages } = prompt.record
  if (messages === undefined) {
    const template = parse(prompt.id, text ?? '', { functions, helpers: true })
    return { templates: [template], roles: undefined, analysis: template.analysis }
  }
  // All messages share one template set: a {{define}} in one is usable in the others, and, as in one
  // text, a later definition wins. The last message is parsed last, so they are parsed in order.
  const names = messages.map((_, i) => `${prompt.id}.messages[${i}]`)
  const last = messages.length - 1
  const set = parse(names[last] as string, messages[last]?.content ?? '', {
    functions,
    helpers: true,
    templates: Object.fromEntries(messages.slice(0, last).map((m, i) => [names[i], m.content])),
  })
  const templates = names.map((name) => set.lookup(name) as Template)
  return { templates, roles: messages.map((m) => m.role), analysis: mergeAnalyses(templates.map((t) => t.analysis)) }
}
