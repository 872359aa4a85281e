import * as z from 'zod/mini'
import {
  DEFAULT_AUDIT_PAGE,
  ENTRY_ID_PATTERN,
  FILTERED_READ_FACTOR,
  MAX_AUDIT_PAGE,
  readAudit,
} from '../lib/changes/audit'
import { CHANGE_ACTIONS } from '../lib/changes/change'
import { RECORD_KINDS } from '../lib/catalog'
import { API_ERRORS, errorsOf, json, pageOf, paged, Routes, defineRoute, described, once, writerOf } from '../lib/http'

const LIMIT_RULE = `must be an integer from 1 to ${MAX_AUDIT_PAGE}`

const AuditEntry = once(() =>
  described(
    z.object({
      entry_id: described(z.string(), {
        description: "The entry's id in the stream: a later `cursor` continues before it.",
        example: '1764310000000-0',
      }),
      action: described(z.enum(CHANGE_ACTIONS), { example: 'write' }),
      kind: z.enum(RECORD_KINDS),
      id: described(z.string(), { example: 'team.review' }),
      label: described(z.nullable(z.string()), { description: 'The label changed; null for the base.' }),
      versions: described(z.array(z.int()), {
        description: 'The versions involved: the one written, for a write, a deletion and a promote.',
        example: [3],
      }),
      by: described(z.string(), { description: "The publisher's name (`admin`: ADMIN_TOKEN).", example: 'admin' }),
      at: described(z.string(), { example: '2026-11-28T06:30:00.000Z' }),
      request_id: described(z.nullable(z.string()), { description: 'The `X-Request-Id` of the change.' }),
    }),
    { id: 'AuditEntry' },
  ),
)

const route = defineRoute('get', '/api/audit', () => ({
  tags: ['versions'],
  summary: 'The audit trail: who changed what and when, newest first',
  description: `Every write, deletion and promote made through the service, one entry per record changed, kept in a Redis stream of about AUDIT_MAX_ENTRIES entries. A filtered page reads at most ${FILTERED_READ_FACTOR} times its \`limit\` of entries: it may hold fewer matches than \`limit\` and still answer a \`next_cursor\` to look further back. The embedded store keeps no trail: its page is empty.`,
  request: {
    query: z.object({
      id: described(z.optional(z.string().check(z.maxLength(300))), {
        description: "Only this record's changes (its id, as the API names it)",
      }),
      by: described(z.optional(z.string().check(z.maxLength(100))), { description: "Only this publisher's changes" }),
      action: described(z.optional(z.enum(CHANGE_ACTIONS)), { description: 'Only changes of this action' }),
      limit: described(
        z.optional(
          z.string().check(
            z.regex(/^[1-9][0-9]{0,2}$/, LIMIT_RULE),
            z.refine((limit) => Number(limit) <= MAX_AUDIT_PAGE, LIMIT_RULE),
          ),
        ),
        { description: `Entries per page at most, 1 to ${MAX_AUDIT_PAGE}; ${DEFAULT_AUDIT_PAGE} when unset.` },
      ),
      cursor: described(z.optional(z.string().check(z.regex(ENTRY_ID_PATTERN, 'is not an entry id'))), {
        description: 'The `next_cursor` of the page before: the page starts with the entries older than it.',
      }),
    }),
  },
  responses: {
    200: json('A page of the trail', pageOf('AuditPage', z.array(AuditEntry()))),
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'CONFLICT'),
  },
}))

/** GET /api/audit: the changes made through the service (lib/changes/audit.ts). */
export const audit = new Routes().openapi(route, async (c) => {
  const { id, by, action, limit, cursor } = c.req.valid('query')
  const page = await readAudit(writerOf(c), {
    limit: limit === undefined ? DEFAULT_AUDIT_PAGE : Number(limit),
    cursor,
    id,
    by,
    action,
  })
  return paged(c, page.entries, [], page.next)
})
