/**
 * A case's answer assertions (`assert_answer`): its rendered prompt sent
 * through the chat /chat runs (the prompt's tools, its `returns` checked
 * with retries, CHAT_TIMEOUT_MS), then the answer's text checked: the text
 * assertions, `json-schema`, `tags`, and `judge` (judge.ts), whose calls
 * one checker (one run) bounds by TEST_MAX_JUDGE_CALLS.
 */
import { returnsSchema } from '../catalog'
import type { JsonSchema } from '../catalog'
import { answerChat } from '../chat'
import { textOf } from '../chat/budget'
import { checkAnswer } from '../chat/returns'
import { parseTagsInTurns, returnsTags } from '../chat/tags'
import { describeHazard, safeSchema } from '../catalog/schema-safety'
import { ServiceError } from '../errors'
import { isObject } from '../json'
import type { Completion } from '../llm'
import type { RenderOptions, Rendered } from '../render'
import type { Settings } from '../settings'
import type { Store } from '../store'
import { judge } from './judge'
import { checkText, clipped } from './text'
import type { AnswerAssertion, AnswerChecked, AnswerChecker, Failure, TestCase } from './types'

/** What a checker asks models with: where the prompt's tools live, and the configuration. */
export interface AnswerContext {
  store: Store
  settings: Pick<Settings, 'defaultModel' | 'llmConfigured' | 'llm' | 'chat' | 'llmRoute' | 'tests'>
  renderOptions: RenderOptions
}

/** Why a case's answer assertions were not checked, when no model answers it. */
const NO_CASE_MODEL = "assert_answer needs a model: set LLM_DEFAULT_MODEL, or the case's model"
const NO_JUDGE_MODEL = "judge needs a model: set TEST_JUDGE_MODEL or LLM_DEFAULT_MODEL, or the assertion's model"

/**
 * The checker of one run, or undefined where no LLM is configured (a run
 * then reports answer cases skipped). Make one per run: it counts the
 * run's judge calls.
 */
export function answerChecker(context: AnswerContext): AnswerChecker | undefined {
  if (!context.settings.llmConfigured) return undefined
  let judgeCalls = 0
  const { settings } = context

  async function judged(
    assertion: AnswerAssertion & { type: 'judge' },
    text: string,
  ): Promise<Failure | string | undefined> {
    const model = assertion.model ?? settings.tests.judgeModel ?? settings.defaultModel
    if (model === undefined) return NO_JUDGE_MODEL
    // Counted before the call: the run's cases check concurrently.
    if (judgeCalls >= settings.tests.maxJudgeCalls) {
      return `judge: this run made its TEST_MAX_JUDGE_CALLS (${settings.tests.maxJudgeCalls}) judge calls`
    }
    judgeCalls++
    const verdict = await judge(assertion.rubric, text, model, settings)
    if (verdict.pass) return undefined
    return { assert: 'judge', expected: clipped(assertion.rubric), actual: clipped(verdict.reason) }
  }

  return {
    async check(promptId: string, rendered: Rendered, testCase: TestCase): Promise<AnswerChecked> {
      const assertions = testCase.assert_answer ?? []
      if (assertions.length === 0) return { failures: [] }
      const model = testCase.model ?? settings.defaultModel
      if (model === undefined) return { failures: [], skipped: NO_CASE_MODEL }
      const schemas = assertions.map((a) => (a.type === 'json-schema' ? schemaOf(a.schema, rendered) : undefined))
      const answer = await answerText(promptId, rendered, model, context)
      if (typeof answer !== 'string') return { failures: [answer] }
      const failures: Failure[] = []
      const skipped: string[] = []
      for (const [i, assertion] of assertions.entries()) {
        let failure: Failure | string | undefined
        if (assertion.type === 'json-schema') failure = schemaFailure(schemas[i] as JsonSchema, assertion, answer)
        else if (assertion.type === 'tags') failure = await tagsFailure(assertion.value, answer, rendered)
        else if (assertion.type === 'judge') failure = await judged(assertion, answer)
        else failure = checkText(assertion, answer)
        if (typeof failure === 'string') skipped.push(failure)
        else if (failure) failures.push(failure)
      }
      return skipped.length > 0 ? { failures, skipped: skipped.join('; ') } : { failures }
    },
  }
}

/**
 * The model's answer text to the rendered prompt, by the chat's own path.
 * An answer the prompt's `returns` refused after LLM_OUTPUT_RETRIES is the
 * case's failure (what a test is for: a prompt that stopped answering
 * JSON), not an error.
 */
async function answerText(
  promptId: string,
  rendered: Rendered,
  model: string,
  context: AnswerContext,
): Promise<string | Failure> {
  let body: string | ReadableStream<Uint8Array>
  try {
    ;({ body } = await answerChat(promptId, rendered, { model }, context))
  } catch (e) {
    if (!(e instanceof ServiceError) || e.code !== 'LLM_INVALID_OUTPUT') throw e
    const errors = Array.isArray(e.extra?.errors) ? e.extra.errors : [e.message]
    return { assert: 'returns', expected: "an answer matching the prompt's returns schema", actual: clipped(errors) }
  }
  // Not streamed: the completion's JSON, bounded by LLM_MAX_BYTES.
  const completion = JSON.parse(body as string) as Completion
  return textOf(completion.choices[0]?.message.content ?? null)
}

/**
 * The schema a `json-schema` assertion checks: its own, else the prompt's
 * `returns`. Neither, or a schema whose validation could freeze the
 * service (the rule a stored `returns` follows), is the case's mistake,
 * found before any model is asked: BAD_REQUEST, so the case is an error.
 */
function schemaOf(schema: unknown, rendered: Rendered): JsonSchema {
  if (schema === undefined) {
    const returns = returnsSchema(rendered.record)
    if (returns) return returns
    throw new ServiceError(
      'BAD_REQUEST',
      "a json-schema assertion has no schema, and the prompt's returns is not a JSON Schema to check against",
    )
  }
  if (!isObject(schema)) throw new ServiceError('BAD_REQUEST', "a json-schema assertion's schema must be an object")
  const hazard = safeSchema(schema)
  if ('keyword' in hazard) {
    const why = describeHazard(hazard)
    throw new ServiceError(
      'BAD_REQUEST',
      `a json-schema assertion's schema is refused, as its validation could freeze the service: ${why}`,
    )
  }
  return schema
}

function schemaFailure(
  schema: JsonSchema,
  assertion: AnswerAssertion & { type: 'json-schema' },
  answer: string,
): Failure | undefined {
  const checked = checkAnswer(schema, answer)
  if (checked.ok) return undefined
  const against = assertion.schema === undefined ? "the prompt's returns schema" : "the assertion's schema"
  return { assert: 'json-schema', expected: `JSON matching ${against}`, actual: clipped(checked.errors) }
}

/**
 * The tags `wanted` the answer lacks, parsed as the chat parses a tags
 * answer (lib/chat/tags.ts), with the prompt's declared tags too, so that
 * one nested in a declared tag is not counted as the answer's own.
 */
async function tagsFailure(wanted: string[], answer: string, rendered: Rendered): Promise<Failure | undefined> {
  const declared = [...new Set([...(returnsTags(rendered.record) ?? []), ...wanted])]
  const { parsed } = await parseTagsInTurns(answer, declared)
  const found = new Set(parsed.map((element) => element.tag))
  if (wanted.every((tag) => found.has(tag.toLowerCase()))) return undefined
  return { assert: 'tags', expected: clipped(wanted), actual: clipped([...found]) }
}
