/**
 * Prompt tests: the cases a prompt's definition keeps in `tests`
 * (jsonschema/prompt.json), and the one report every runner answers (the
 * API's routes, the CLI, the promote gate, the playground). These types
 * mirror the schema; the schema is the truth.
 */
import type { JsonObject } from '../json'
import type { Rendered } from '../render'

/** A check of the rendered text (`assert`) or of the model's answer text (`assert_answer`). */
export type TextAssertion =
  | { type: 'equals'; value: string }
  | { type: 'contains'; value: string }
  | { type: 'not-contains'; value: string }
  | { type: 'matches'; value: string }
  | { type: 'max-chars'; value: number }

/** `assert`: the text checks, and what only a render has (its warnings, its error). */
export type RenderAssertion = TextAssertion | { type: 'no-warnings' } | { type: 'fails-with'; value: string }

/** `assert_answer`: the text checks, and what only a model's answer has. */
export type AnswerAssertion =
  | TextAssertion
  | { type: 'json-schema'; schema?: unknown }
  | { type: 'tags'; value: string[] }
  | { type: 'judge'; rubric: string; model?: string }

/** One case of a prompt's `tests`. */
export interface TestCase {
  name: string
  args?: JsonObject
  /** Laid over the shared variables for this case only. */
  variables?: JsonObject
  /** A tool's answer, by the tool's id as templates call it: that tool is not called. */
  tools?: Record<string, unknown>
  assert?: RenderAssertion[]
  assert_answer?: AnswerAssertion[]
  /** The model answering this case (else LLM_DEFAULT_MODEL). */
  model?: string
}

/** One assertion that did not hold. `assert` names it (`contains`, `judge`...; `render` when the render failed unexpectedly). */
export interface Failure {
  assert: string
  expected: unknown
  actual: unknown
}

export type CaseResult = 'pass' | 'fail' | 'skipped' | 'error'

/** How one case went. Texts in it are clipped (CLIP_CHARS). */
export interface CaseReport {
  /** The prompt's id. */
  prompt: string
  name: string
  result: CaseResult
  failures: Failure[]
  ms: number
  /** Why the case (or its answer assertions) was skipped. */
  reason?: string
  /** What kept the case from running (result `error`): the service's code and message. */
  error?: { code: string; message: string }
}

/** What a run answers, wherever it ran. */
export interface TestReport {
  passed: number
  failed: number
  skipped: number
  errors: number
  cases: CaseReport[]
}

/**
 * Checks a case's `assert_answer` against a model's answer to its rendered
 * prompt (lib/prompt-tests/answer.ts makes one when a model is configured;
 * a run without one reports such cases skipped). It throws a ServiceError
 * when the answer could not be had (LLM_FAILED, CHAT_TIMEOUT...): the case's
 * result is then `error`.
 */
export interface AnswerChecker {
  check(promptId: string, rendered: Rendered, testCase: TestCase): Promise<AnswerChecked>
}

/** The answer assertions that did not hold; `skipped` says why some were not checked (a judge past TEST_MAX_JUDGE_CALLS). */
export interface AnswerChecked {
  failures: Failure[]
  skipped?: string
}

/** Characters of a text quoted in a report (an expected or actual value). */
export const CLIP_CHARS = 500
