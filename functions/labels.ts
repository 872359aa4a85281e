import * as z from 'zod/mini'
import type { Context } from 'hono'
import { listLabels } from '../lib/catalog'
import { ServiceError } from '../lib/errors'
import {
  API_ERRORS,
  adminAuth,
  changesOf,
  errorsOf,
  json,
  pageOf,
  paged,
  storeOf,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  once,
  publisherOf,
  recordChanges,
  renderOptionsOf,
  requireScope,
  settingsOf,
  writerOf,
  LABEL_PATTERN,
  LABEL_RULE,
} from '../lib/http'
import type { AppEnv } from '../lib/http'
import { requestLog } from '../lib/log'
import { gatedPromote } from '../lib/prompt-tests'
import { promote, requestPromote } from '../lib/publish'
import { ListQuery, pageAsked } from './shapes'

/** A label, made for each use: the path's has an example, the query's `to` none (/docs would pre-fill it). */
const Label = () => z.string().check(z.regex(LABEL_PATTERN, LABEL_RULE))

export const Promotion = once(() =>
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

const PromoteRequested = once(() =>
  successOf(
    'PromoteRequested',
    described(
      z.object({
        request: described(z.int(), { description: 'The request number, for its approval.', example: 1 }),
        label: z.string(),
        to: described(z.nullable(z.string()), { description: 'The target label; null for the base.' }),
        by: described(z.string(), { description: 'The publisher who asked: another must approve.' }),
      }),
      { id: 'PromoteRequest' },
    ),
  ),
)

const LabelList = once(() =>
  pageOf(
    'LabelList',
    z.array(described(z.object({ label: z.string() }), { id: 'LabelEntry', example: { label: 'feat-login' } })),
  ),
)

const list = defineRoute('get', '/api/labels', () => ({
  tags: ['versions'],
  summary: 'The labels that have records of their own',
  description:
    'Read from the record index, a page at a time in byte order: a page costs its labels, never their keys. The embedded store has none.',
  request: { query: z.omit(ListQuery(), { label: true }) },
  responses: {
    200: json('A page of the labels', LabelList()),
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST'),
  },
}))

const route = defineRoute('post', '/api/labels/{label}/promote', () => ({
  tags: ['writes'],
  summary: "Copies a label's records onto the base (or another label), then removes the label",
  description:
    "Needs a publisher with the scope `promote`. With PROMOTE_APPROVALS set, the promote (not a dry run) is kept as a request and answered 202 with its number: it is carried out when another publisher approves it (POST /api/labels/{label}/promote/requests/{n}/approve). First the tests of every prompt the label changes, or whose templates read a variable or call a tool it changes, run against the label's records: any failure or error is 409 TESTS_FAILED with the `report`, and nothing changes. Then one transaction: each changed record becomes a new version on the target, a record the label deleted is deleted there, and the label's records and history are removed. `dry_run=true` only answers what would change (no tests run); `force=true` promotes without running them.",
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
    202: json('With PROMOTE_APPROVALS: the request kept, waiting for an approval', PromoteRequested()),
    ...errorsOf(
      ...API_ERRORS,
      'WRITES_DISABLED',
      'FORBIDDEN',
      'BAD_REQUEST',
      'CONFLICT',
      'TESTS_FAILED',
      'LIMIT_EXCEEDED',
    ),
  },
}))

/**
 * Carries out a promote (the gate first: lib/prompt-tests gatedPromote), its
 * versions kept as `by`'s; said in the log line. The promote route and an
 * approval of a promote request both run it.
 */
export async function gatedPromoteOf(
  c: Context<AppEnv>,
  label: string,
  asked: { to: string | undefined; message: string | undefined; force: boolean; by: string },
) {
  const settings = settingsOf(c)
  const { to, force } = asked
  const { promotions, report } = await gatedPromote(writerOf(c), label, {
    ...asked,
    historyLimit: settings.historyLimit,
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
    forced: force,
    tests: counts ?? null,
  })
  const made = promotions.map(({ kind, id, version }) => ({
    action: 'promote' as const,
    kind,
    id,
    label: to ?? null,
    versions: version === undefined ? [] : [version],
  }))
  // By the promote's author, as its versions are, when an approval carries it out.
  await recordChanges(c, changesOf(c, made, asked.by))
  return promotions
}

/**
 * POST /api/labels/{label}/promote: a branch's records, merged once its
 * tests pass; with PROMOTE_APPROVALS, kept as a request another publisher
 * approves (functions/approvals.ts).
 */
export const labels = new Routes()
  .openapi(list, async (c) => {
    const { items, skipped, next } = await listLabels(storeOf(c), pageAsked(c.req.valid('query')))
    return paged(c, items, skipped, next)
  })
  .openapi(route, async (c) => {
    const { label } = c.req.valid('param')
    const { to, dry_run, message, force } = c.req.valid('query')
    if (to === label) throw new ServiceError('BAD_REQUEST', `the label '${label}' cannot be promoted onto itself`)
    requireScope(c, 'promote')
    const settings = settingsOf(c)
    if (dry_run === 'true') {
      const promotions = await promote(writerOf(c), label, { to, dryRun: true, historyLimit: settings.historyLimit })
      requestLog()?.set('promoted', { label, to: to ?? null, records: promotions.length, dry_run: true })
      return success(c, promotions)
    }
    const asked = { to, message, force: force === 'true', by: publisherOf(c).name }
    if (settings.promoteApprovals) {
      const { request, by } = await requestPromote(writerOf(c), label, asked)
      requestLog()?.set('promote_request', { label, to: to ?? null, request })
      return c.json({ status: 'success' as const, data: { request, label, to: to ?? null, by } }, 202)
    }
    return success(c, await gatedPromoteOf(c, label, asked))
  })
