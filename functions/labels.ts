import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi'
import { ServiceError } from '../lib/errors'
import { API_ERRORS, adminAuth, errorsOf, json, success, successOf } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { requestLog } from '../lib/log'
import { historyLimitOf, promote } from '../lib/publish'
import { LABEL_PATTERN, LABEL_RULE, openStore } from '../lib/store'

const Label = z.string().regex(LABEL_PATTERN, LABEL_RULE).openapi({ example: 'feat-login' })

const Promotion = z
  .object({
    kind: z.enum(['extensions', 'prompts', 'environs', 'tools']),
    id: z.string(),
    key: z.string().openapi({ description: 'The key written on the target.' }),
    before: z.string().nullable().openapi({ description: 'The stored text before; null where there was no record.' }),
    after: z.string().nullable().openapi({ description: 'The stored text after; null where the record is deleted.' }),
  })
  .openapi('Promotion')

const route = createRoute({
  method: 'post',
  path: '/{label}/promote',
  tags: ['writes'],
  summary: "Copies a label's records onto the base (or another label), then removes the label",
  description:
    "Needs ADMIN_TOKEN. One transaction: each changed record becomes a new version on the target, a record the label deleted is deleted there, and the label's records and history are removed. `dry_run=true` only answers what would change.",
  middleware: [adminAuth],
  request: {
    params: z.object({ label: Label }),
    query: z.object({
      to: Label.optional().openapi({ description: 'The target label; unset, the base.' }),
      dry_run: z.enum(['true', 'false']).optional(),
      message: z.string().max(500).optional(),
    }),
  },
  responses: {
    200: json('What changed (or would)', successOf('PromoteAnswer', z.array(Promotion))),
    ...errorsOf(...API_ERRORS, 'WRITES_DISABLED', 'BAD_REQUEST', 'CONFLICT'),
  },
})

/** POST /api/labels/{label}/promote: a branch's records, merged. */
export const labels = new OpenAPIHono<AppEnv>().openapi(route, async (c) => {
  const { label } = c.req.valid('param')
  const { to, dry_run, message } = c.req.valid('query')
  if (to === label) throw new ServiceError('BAD_REQUEST', `the label '${label}' cannot be promoted onto itself`)
  const historyLimit = historyLimitOf(c.env)
  const promotions = await promote(openStore(c.env), label, { to, dryRun: dry_run === 'true', message, historyLimit })
  requestLog()?.set('promoted', { label, to: to ?? null, records: promotions.length, dry_run: dry_run === 'true' })
  return success(c, promotions)
})
