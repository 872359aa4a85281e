import * as z from 'zod/mini'
import { ServiceError } from '../lib/errors'
import {
  API_ERRORS,
  adminAuth,
  errorsOf,
  json,
  publisherOf,
  requireScope,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  writerOf,
  LABEL_PATTERN,
  LABEL_RULE,
  changesOf,
  recordChanges,
} from '../lib/http'
import { requestLog } from '../lib/log'
import { checkPlan, closePromoteRequest, promoteRequest } from '../lib/publish'
import { Promotion, gatedPromoteOf } from './labels'
import { versionNumber } from './shapes'

const route = defineRoute('post', '/api/labels/{label}/promote/requests/{n}/approve', () => ({
  tags: ['writes'],
  summary: 'Approves a promote request (PROMOTE_APPROVALS), carrying out the promote',
  description:
    "Needs a publisher with the scope `approve`, other than the request's author (403 FORBIDDEN). The promote runs as it would have when asked (its tests first, `force` as asked), each version kept as the author's with the message naming the approver; the request is then gone. When the label or its target changed since the request, 409 CONFLICT: ask for a promote again.",
  middleware: [adminAuth],
  request: {
    params: z.object({
      label: described(z.string().check(z.regex(LABEL_PATTERN, LABEL_RULE)), { example: 'feat-login' }),
      n: described(versionNumber(), { description: 'The number the promote answered.', example: '1' }),
    }),
  },
  responses: {
    200: json('What changed', successOf('ApprovedPromoteAnswer', z.array(Promotion()))),
    ...errorsOf(
      ...API_ERRORS,
      'WRITES_DISABLED',
      'FORBIDDEN',
      'NOT_FOUND',
      'BAD_REQUEST',
      'CONFLICT',
      'TESTS_FAILED',
      'LIMIT_EXCEEDED',
    ),
  },
}))

/** POST /api/labels/{label}/promote/requests/{n}/approve: a second publisher carries out a promote. */
export const approvals = new Routes().openapi(route, async (c) => {
  const { label, n } = c.req.valid('param')
  requireScope(c, 'approve')
  const approver = publisherOf(c).name
  const request = await promoteRequest(writerOf(c), label, Number(n))
  if (request.by === approver) {
    throw new ServiceError(
      'FORBIDDEN',
      `publisher '${approver}' made promote request ${request.request} of label '${label}': another publisher approves it`,
    )
  }
  await checkPlan(writerOf(c), request)
  requestLog()?.set('approved', { label, request: request.request, author: request.by })
  const promotions = await gatedPromoteOf(c, label, {
    to: request.to ?? undefined,
    message: `${request.message ?? `promoted from label ${label}`}; approved by ${approver} (request ${request.request})`,
    force: request.force,
    by: request.by,
  })
  // Closed once carried out: one its tests refused stays waiting (a tool that failed them may answer next time).
  await closePromoteRequest(writerOf(c), label, request.request)
  // The promote is its author's (gatedPromoteOf records it so); each record's approval is the approver's.
  const approved = promotions.map(({ kind, id, version }) => ({
    action: 'approve' as const,
    kind,
    id,
    label: request.to,
    versions: version === undefined ? [] : [version],
  }))
  await recordChanges(c, changesOf(c, approved))
  return success(c, promotions)
})
