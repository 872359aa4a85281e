import * as z from 'zod/mini'
import { ServiceError } from '../lib/errors'
import {
  API_ERRORS,
  adminAuth,
  changesOf,
  errorsOf,
  json,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  once,
  recordChanges,
  renderOptionsOf,
  settingsOf,
  writerOf,
  LABEL_PATTERN,
  LABEL_RULE,
} from '../lib/http'
import { requestLog } from '../lib/log'
import { gatedPromote } from '../lib/prompt-tests'
import { promote } from '../lib/publish'

/** A label, made for each use: the path's has an example, the query's `to` none (/docs would pre-fill it). */
const Label = () => z.string().check(z.regex(LABEL_PATTERN, LABEL_RULE))

const Promotion = once(() =>
  described(
    z.object({
      kind: z.enum(['extensions', 'prompts', 'environs', 'tools']),
      id: z.string(),
      key: described(z.string(), { description: 'The key written on the target.' }),
      before: described(z.nullable(z.string()), {
        description: 'The stored text before; null where there was no record.',
      }),
      after: described(z.nullable(z.string()), {
        description: 'The stored text after; null where the record is deleted.',
      }),
      version: described(z.optional(z.int()), {
        description: 'The version written on the target; absent from a dry run.',
      }),
    }),
    { id: 'Promotion' },
  ),
)

const route = defineRoute('post', '/api/labels/{label}/promote', () => ({
  tags: ['writes'],
  summary: "Copies a label's records onto the base (or another label), then removes the label",
  description:
    "Needs ADMIN_TOKEN. First the tests of every prompt the label changes, or whose templates read a variable or call a tool it changes, run against the label's records: any failure or error is 409 TESTS_FAILED with the `report`, and nothing changes. Then one transaction: each changed record becomes a new version on the target, a record the label deleted is deleted there, and the label's records and history are removed. `dry_run=true` only answers what would change (no tests run); `force=true` promotes without running them.",
  middleware: [adminAuth],
  request: {
    params: z.object({ label: described(Label(), { example: 'feat-login' }) }),
    query: z.object({
      to: described(z.optional(Label()), { description: 'The target label, such as `release`; unset, the base.' }),
      dry_run: described(z.optional(z.enum(['true', 'false'])), {
        description: '`true`: only answer what would change.',
      }),
      message: described(z.optional(z.string().check(z.maxLength(500))), {
        description: 'Kept with each version written (at most 500 characters); unset, `promoted from label {label}`.',
      }),
      force: described(z.optional(z.enum(['true', 'false'])), {
        description:
          "`true`: promote without running the tests; each version's message ends `; tests skipped (force)`.",
      }),
    }),
  },
  responses: {
    200: json('What changed (or would)', successOf('PromoteAnswer', z.array(Promotion()))),
    ...errorsOf(...API_ERRORS, 'WRITES_DISABLED', 'BAD_REQUEST', 'CONFLICT', 'TESTS_FAILED', 'LIMIT_EXCEEDED'),
  },
}))

/** POST /api/labels/{label}/promote: a branch's records, merged once its tests pass. */
export const labels = new Routes().openapi(route, async (c) => {
  const { label } = c.req.valid('param')
  const { to, dry_run, message, force } = c.req.valid('query')
  if (to === label) throw new ServiceError('BAD_REQUEST', `the label '${label}' cannot be promoted onto itself`)
  const settings = settingsOf(c)
  const { historyLimit } = settings
  if (dry_run === 'true') {
    const promotions = await promote(writerOf(c), label, { to, dryRun: true, historyLimit })
    requestLog()?.set('promoted', { label, to: to ?? null, records: promotions.length, dry_run: true })
    return success(c, promotions)
  }
  const forced = force === 'true'
  const { promotions, report } = await gatedPromote(writerOf(c), label, {
    to,
    message,
    historyLimit,
    force: forced,
    settings,
    renderOptions: renderOptionsOf(c),
  })
  const counts = report && {
    passed: report.passed,
    failed: report.failed,
    skipped: report.skipped,
    errors: report.errors,
  }
  requestLog()?.set('promoted', {
    label,
    to: to ?? null,
    records: promotions.length,
    dry_run: false,
    forced,
    tests: counts ?? null,
  })
  const made = promotions.map(({ kind, id, version }) => ({
    action: 'promote' as const,
    kind,
    id,
    label: to ?? null,
    versions: version === undefined ? [] : [version],
  }))
  await recordChanges(c, changesOf(c, made))
  return success(c, promotions)
})
