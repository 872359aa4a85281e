import { normalizeParameters, parsePrompt } from '../catalog'
import type { ParsedPrompt, Prompt, PromptRecord } from '../catalog'
import { ServiceError } from '../errors'
import { BUILTIN_NAMES, HELPER_NAMES, ParseError } from '../template'
import { argsChecker } from './args'
import type { Args } from './args'

/** A prompt made ready to render: its templates parsed, what they read, and its args checker. */
export interface CompiledPrompt extends ParsedPrompt {
  readonly checkArgs: (args: Args) => Args
}

/** A prompt parsed with every name a function, and those names (see functionNames). */
interface EveryCall {
  readonly parsed: ParsedPrompt
  readonly names: readonly string[]
}

/** What a template calls without any tool: a name outside these and the tools is undefined. */
const PROVIDED: ReadonlySet<string> = new Set([...BUILTIN_NAMES, ...HELPER_NAMES])

/**
 * What is derived from a prompt's templates, by record, then by id and what
 * was derived. A record is one object for as long as its text in Redis is
 * unchanged (catalog/records.ts): a changed prompt is a new record, parsed
 * at its next use; an unchanged one never again, and finding it costs no
 * serialisation. A prompt that does not parse is remembered as its error.
 */
const derived = new WeakMap<PromptRecord, Map<string, CompiledPrompt | EveryCall | ServiceError>>()

function remembered<T extends CompiledPrompt | EveryCall>(prompt: Prompt, what: string, make: () => T): T {
  let byWhat = derived.get(prompt.record)
  if (!byWhat) derived.set(prompt.record, (byWhat = new Map()))
  const key = `${prompt.id}\n${what}`
  let entry = byWhat.get(key)
  if (!entry) {
    try {
      entry = make()
    } catch (e) {
      if (!(e instanceof ParseError)) throw e
      entry = new ServiceError('TEMPLATE_SYNTAX', e.message, {
        extra: { template: e.templateName, line: e.line, column: e.column },
      })
    }
    byWhat.set(key, entry)
  }
  if (entry instanceof ServiceError) throw entry
  return entry as T
}

/**
 * The prompt parsed with `functions` the names its templates may call
 * besides the builtins and helpers. When it calls no other name, that parse
 * is functionNames' own (the same trees), so it is not parsed again.
 */
export function compile(prompt: Prompt, functions: readonly string[]): CompiledPrompt {
  return remembered(prompt, `compiled\n${functions.join('\n')}`, () => {
    const every = everyCall(prompt)
    const supplied = new Set(functions)
    const same = every.names.every((name) => supplied.has(name) || PROVIDED.has(name))
    return same ? withArgsChecker(prompt, every.parsed) : compilePrompt(prompt, functions)
  })
}

/**
 * Every name the prompt's templates call as a function, in any template they
 * define (reached or not, as Go checks them all at parse time), sorted: the
 * names a tool could answer to. They are parsed with every name a function,
 * `break` and `continue` included (which are keywords only where no function
 * has their name), so no tool that would change the parse goes unasked; a
 * text that fails this parse fails with any functions at all.
 */
export function functionNames(prompt: Prompt): readonly string[] {
  return everyCall(prompt).names
}

function everyCall(prompt: Prompt): EveryCall {
  return remembered(prompt, 'every call', () => {
    const parsed = parsePrompt(prompt, () => true)
    const names = new Set<string>()
    // The templates of a prompt share one set of trees.
    for (const tree of parsed.templates[0]?.trees.values() ?? []) for (const name of tree.functions) names.add(name)
    return { parsed, names: [...names].sort() }
  })
}

/** Parses a prompt's templates (see parsePrompt) and makes its args checker, uncached. */
export function compilePrompt(prompt: Prompt, functions?: readonly string[]): CompiledPrompt {
  return withArgsChecker(prompt, parsePrompt(prompt, functions))
}

function withArgsChecker(prompt: Prompt, parsed: ParsedPrompt): CompiledPrompt {
  return { ...parsed, checkArgs: argsChecker(normalizeParameters(prompt.record.parameters)) }
}
