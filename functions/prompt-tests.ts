import * as z from 'zod/mini'
import { draftPrompt } from '../lib/catalog'
import {
  API_ERRORS,
  errorsOf,
  freshStoreOf,
  json,
  jsonBody,
  Routes,
  defineRoute,
  described,
  once,
  renderOptionsOf,
  settingsOf,
  successOf,
  writerOf,
  LABEL_PATTERN,
  LABEL_RULE,
} from '../lib/http'
import type { AppEnv } from '../lib/http'
import type { Context } from 'hono'
import { ServiceError } from '../lib/errors'
import { checkedCases, labelChangesRun, promptsWithTests, runTests, testContext } from '../lib/prompt-tests'
import type { TestContext, TestTarget } from '../lib/prompt-tests'
import { requestLog } from '../lib/log'
import { BODY_LIMITS, DraftRecord, PromptId, PromptQuery, ReadQuery, definedOnly } from './shapes'

const Cases = once(() =>
  described(z.array(z.unknown()), {
    description: "Test cases, each as a prompt's `tests` holds them (jsonschema/prompt.json; docs/prompt-tests.md).",
  }),
)

const PromptTestBody = once(() =>
  described(
    z.object({
      draft: described(z.optional(DraftRecord()), {
        description: 'Test this text (checked as a stored prompt is) instead of the stored one.',
      }),
      tests: described(z.optional(Cases()), { description: "Run these cases instead of the prompt's own." }),
      names: described(z.optional(z.array(z.string())), { description: 'Only the cases of these names.' }),
    }),
    { id: 'PromptTestRequest', description: `All optional: no body runs the stored prompt's cases. ${BODY_LIMITS}` },
  ),
)

const RunBody = once(() =>
  described(
    z.object({
      ids: described(z.optional(z.array(z.string())), {
        description: 'The prompts to test; absent, every prompt (as the label sees them) that has tests.',
      }),
      changed_by: described(z.optional(z.string().check(z.regex(LABEL_PATTERN, LABEL_RULE))), {
        description:
          'A label: test, in that label, the prompts its promotion would test (those it changes, and those reading a variable or calling a tool it changes). Not with `ids` or `?label=`.',
      }),
    }),
    { id: 'TestRunRequest', description: BODY_LIMITS },
  ),
)

const Failure = once(() =>
  described(z.object({ assert: z.string(), expected: z.unknown(), actual: z.unknown() }), { id: 'TestFailure' }),
)

const TestReport = once(() =>
  described(
    z.object({
      passed: z.number(),
      failed: z.number(),
      skipped: z.number(),
      errors: z.number(),
      cases: z.array(
        z.object({
          prompt: z.string(),
          name: z.string(),
          result: z.enum(['pass', 'fail', 'skipped', 'error']),
          failures: z.array(Failure()),
          ms: z.number(),
          reason: z.optional(z.string()),
          error: z.optional(z.object({ code: z.string(), message: z.string() })),
        }),
      ),
    }),
    {
      id: 'TestReport',
      description: 'How each case went, texts clipped to 500 characters; the counts add up to the cases.',
    },
  ),
)

const TEST_ERRORS = [
  'BAD_REQUEST',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'NOT_FOUND',
  'LIMIT_EXCEEDED',
] as const

const one = defineRoute('post', '/api/prompts/{prompt_id}/test', () => ({
  tags: ['prompts'],
  summary: "Runs a prompt's test cases (or a draft's, or the cases given) and reports each",
  middleware: jsonBody,
  request: {
    params: z.object({ prompt_id: PromptId() }),
    query: PromptQuery(),
    body: {
      required: false,
      content: {
        'application/json': {
          schema: PromptTestBody(),
          example: {
            tests: [
              {
                name: 'quotes the code',
                args: { code: 'x := 1' },
                assert: [{ type: 'contains', value: 'x := 1' }, { type: 'no-warnings' }],
              },
            ],
          },
        },
      },
    },
  },
  responses: {
    200: json('The report: 200 whether the cases pass or not', successOf('TestReportAnswer', TestReport())),
    ...errorsOf(...API_ERRORS, ...TEST_ERRORS, 'VERSION_NOT_FOUND', 'TEMPLATE_SYNTAX'),
  },
}))

const all = defineRoute('post', '/api/test', () => ({
  tags: ['prompts'],
  summary: 'Runs the test cases of the prompts named, or of every prompt that has some, and reports each',
  middleware: jsonBody,
  request: {
    query: ReadQuery(),
    body: {
      required: false,
      content: { 'application/json': { schema: RunBody(), example: { ids: ['evaluator.quick_review'] } } },
    },
  },
  responses: {
    200: json('The report: 200 whether the cases pass or not', successOf('TestReportAnswer', TestReport())),
    ...errorsOf(...API_ERRORS, ...TEST_ERRORS),
  },
}))

/**
 * POST /api/prompts/{prompt_id}/test and POST /api/test: prompt tests
 * (lib/prompt-tests) against the store `?label=` sees. A run that ran
 * answers 200 with its report, whatever its cases' results: the caller (the
 * CLI, the preview) decides what a failure means.
 */
export const promptTests = new Routes()
  .openapi(one, async (c) => {
    const id = c.req.valid('param').prompt_id
    requestLog()?.set('prompt_id', id)
    const { draft, tests, names } = c.req.valid('json')
    const { version } = c.req.valid('query')
    const target: TestTarget = {
      id,
      version: version === undefined ? undefined : Number(version),
      draft: draft === undefined ? undefined : draftPrompt(definedOnly(draft)),
      tests: tests === undefined ? undefined : checkedCases(tests, settingsOf(c).tests),
      names,
    }
    return c.json({ status: 'success' as const, data: await run(await contextOf(c), [target]) }, 200)
  })
  .openapi(all, async (c) => {
    const { ids, changed_by: changedBy } = c.req.valid('json')
    if (changedBy === undefined) {
      const context = await contextOf(c)
      const targets = (ids ?? (await promptsWithTests(context.store))).map((id) => ({ id }))
      return c.json({ status: 'success' as const, data: await run(context, targets) }, 200)
    }
    if (ids !== undefined || c.req.query('label') !== undefined) {
      throw new ServiceError(
        'BAD_REQUEST',
        'changed_by names both the prompts and the label they are read in: give it without ids or ?label=',
      )
    }
    const { targets, context } = await labelChangesRun(writerOf(c), changedBy, settingsOf(c), renderOptionsOf(c))
    return c.json({ status: 'success' as const, data: await run(context, targets) }, 200)
  })

/** A run over the store `?label=` sees, as the request's settings say. */
async function contextOf(c: Context<AppEnv>): Promise<TestContext> {
  return testContext(await freshStoreOf(c), settingsOf(c), renderOptionsOf(c))
}

async function run(context: TestContext, targets: TestTarget[]) {
  const report = await runTests(targets, context)
  const { passed, failed, skipped, errors } = report
  requestLog()?.set('tests', { passed, failed, skipped, errors })
  return report
}
