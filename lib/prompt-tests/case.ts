import type { Prompt } from '../catalog'
import { ServiceError } from '../errors'
import { describeError, requestLog } from '../log'
import { renderDraft, renderPrompt } from '../render'
import type { Rendered, RenderOptions } from '../render'
import type { Store } from '../store'
import { checkText, clipped, renderedText } from './text'
import type { AnswerChecker, CaseReport, Failure, RenderAssertion, TestCase } from './types'

/** Why answer assertions are not run when no checker was given. */
export const NO_MODEL = 'assert_answer needs a model: set LLM_BASE_URL (or LLM_ROUTES) and LLM_DEFAULT_MODEL'

/** What kept a case from running as meant, rather than what its prompt got wrong: its result is `error`. */
const NOT_THE_PROMPTS_FAULT: ReadonlySet<string> = new Set(['STORE_UNAVAILABLE', 'INTERNAL', 'MISCONFIGURED'])

/** A prompt as a run tests it: the stored one (at a version, or as served now) or a draft. */
export interface Subject {
  id: string
  prompt: Prompt
  version: number | undefined
  draft: boolean
}

/** What a case is run with. */
export interface CaseContext {
  store: Store
  renderOptions: RenderOptions
  answers: AnswerChecker | undefined
}

/**
 * Runs one case: renders the prompt with the case's args, its variables laid
 * over the shared ones and its tools' answers fixed (RenderOverlay), under
 * the render's deadline; checks `assert`, then, when those hold and a model
 * answers, `assert_answer`. Never throws: what went wrong is the report's.
 */
export async function runCase(subject: Subject, testCase: TestCase, context: CaseContext): Promise<CaseReport> {
  const started = Date.now()
  // In the order docs/prompt-tests.md shows: who, how it went, why, how long.
  const report = ({
    result,
    failures = [],
    ...rest
  }: Pick<CaseReport, 'result'> & Partial<CaseReport>): CaseReport => ({
    prompt: subject.id,
    name: testCase.name,
    result,
    failures,
    ...rest,
    ms: Date.now() - started,
  })
  try {
    const asserts = testCase.assert ?? []
    const expectedCode = asserts.find((a) => a.type === 'fails-with')?.value
    let rendered: Rendered
    try {
      rendered = await render(subject, testCase, context)
    } catch (e) {
      if (!(e instanceof ServiceError) || NOT_THE_PROMPTS_FAULT.has(e.code)) throw e
      const actual = clipped(`${e.code}: ${e.message}`)
      if (expectedCode === e.code) return report({ result: 'pass' })
      const assert = expectedCode === undefined ? 'render' : 'fails-with'
      const expected = expectedCode ?? 'a rendered prompt'
      return report({ result: 'fail', failures: [{ assert, expected, actual }] })
    }
    const unused = Object.keys(testCase.tools ?? {}).filter((id) => !rendered.analysis.functions.includes(id))
    if (unused.length > 0) {
      const message = `the case fixes the answer of ${unused.join(', ')}, which the templates do not call`
      return report({ result: 'error', error: { code: 'BAD_REQUEST', message } })
    }
    const failures = renderFailures(asserts, rendered)
    const answerAsserts = testCase.assert_answer ?? []
    if (failures.length > 0 || answerAsserts.length === 0)
      return report({ result: failures.length > 0 ? 'fail' : 'pass', failures })
    if (context.answers === undefined) return report({ result: 'skipped', reason: NO_MODEL })
    const checked = await context.answers.check(subject.id, rendered, testCase)
    if (checked.failures.length > 0) return report({ result: 'fail', failures: checked.failures })
    return report(checked.skipped === undefined ? { result: 'pass' } : { result: 'skipped', reason: checked.skipped })
  } catch (e) {
    if (e instanceof ServiceError) return report({ result: 'error', error: { code: e.code, message: e.message } })
    // A bug: its description goes to the log, which the report points to.
    requestLog()?.event('error', 'prompt test failed unexpectedly', {
      prompt: subject.id,
      case: testCase.name,
      error: describeError(e),
    })
    return report({
      result: 'error',
      error: { code: 'INTERNAL', message: 'the case failed unexpectedly: see the log' },
    })
  }
}

function render(subject: Subject, testCase: TestCase, context: CaseContext): Promise<Rendered> {
  const overlay = {
    variables: testCase.variables,
    tools: testCase.tools === undefined ? undefined : new Map(Object.entries(testCase.tools)),
  }
  const args = testCase.args ?? {}
  if (subject.draft) return renderDraft(context.store, subject.prompt, args, { ...context.renderOptions, overlay })
  const options = { ...context.renderOptions, version: subject.version, overlay }
  return renderPrompt(context.store, subject.id, args, options)
}

/** The render assertions that did not hold of a render that succeeded. */
function renderFailures(asserts: readonly RenderAssertion[], rendered: Rendered): Failure[] {
  const text = renderedText(rendered)
  return asserts.flatMap((assertion): Failure[] => {
    switch (assertion.type) {
      case 'no-warnings': {
        const { warnings } = rendered
        if (warnings.length === 0) return []
        const actual = clipped(warnings.map((w) => `${w.code}: ${w.message}`).join('; '))
        return [{ assert: 'no-warnings', expected: 'no warnings', actual }]
      }
      case 'fails-with':
        return [{ assert: 'fails-with', expected: assertion.value, actual: 'rendered without an error' }]
      default: {
        const failure = checkText(assertion, text)
        return failure ? [failure] : []
      }
    }
  })
}
