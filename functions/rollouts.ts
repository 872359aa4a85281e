import * as z from 'zod/mini'
import type { Context } from 'hono'
import {
  API_ERRORS,
  adminAuth,
  errorsOf,
  jsonBody,
  json,
  labelOf,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  once,
  writerOf,
  changesOf,
  recordChanges,
  requireScope,
} from '../lib/http'
import type { AppEnv } from '../lib/http'
import { requestLog } from '../lib/log'
import { BUCKETS, MAX_ROLLOUT_VERSIONS, endRollout, getRollout, putRollout } from '../lib/rollout'
import type { RolloutAnswer } from '../lib/rollout'
import { BODY_LIMITS, PromptId, ReadQuery } from './shapes'

const Weighted = once(() =>
  z.object({
    version: described(z.int(), { description: "A version kept of the prompt's record.", example: 8 }),
    weight: described(z.int(), { description: `Its share of the ${BUCKETS} buckets, 0 to ${BUCKETS}.`, example: 10 }),
  }),
)

const STICKY =
  '`header:<name>` (such as `header:X-User-Id`) or `arg:<name>`: the version is picked by a hash of the prompt id and that value, so a caller keeps its version while the weights change. Unset (or the value missing from a request): a version per request, at random.'

const RolloutBody = once(() =>
  z.object({
    versions: described(z.array(Weighted()), {
      description: `2 to ${MAX_ROLLOUT_VERSIONS} distinct versions (MAX_ROLLOUT_VERSIONS), their weights summing to ${BUCKETS}.`,
    }),
    sticky: described(z.optional(z.string()), { description: STICKY }),
  }),
)

const RolloutShape = once(() =>
  described(
    z.object({
      id: z.string(),
      label: described(z.nullable(z.string()), {
        description: "The label whose own record it rolls out; null for the base's.",
      }),
      versions: described(z.array(Weighted()), { description: 'Newest version first: the order of the buckets.' }),
      sticky: described(z.nullable(z.string()), { description: STICKY }),
    }),
    { id: 'Rollout' },
  ),
)
const RolloutAnswerShape = once(() => successOf('RolloutAnswer', RolloutShape()))

const SERVING =
  'A render without `?version=` (/render, /chat, /v1, MCP prompts/get) serves one of its versions, and says which in `X-Prompt-Version`. A write or a rollback leaves it serving the versions it names; a promote of its label ends it (docs/versions-and-previews.md, Rollouts).'

const params = () => z.object({ prompt_id: PromptId() })

const putRoute = defineRoute('put', '/api/prompts/{prompt_id}/rollout', () => ({
  tags: ['writes'],
  summary: 'Serves a prompt from weighted versions of its record',
  description: `Needs ADMIN_TOKEN. Starts, or changes, the rollout of the prompt in the base or in \`?label=\` (the label's own record of it: 409 CONFLICT when the label serves the base's). Each version must be kept, not a deletion (400 naming one that is not). ${SERVING} ${BODY_LIMITS}`,
  middleware: [adminAuth, ...jsonBody],
  request: {
    params: params(),
    query: ReadQuery(),
    body: {
      content: {
        'application/json': {
          schema: RolloutBody(),
          example: {
            versions: [
              { version: 2, weight: 90 },
              { version: 1, weight: 10 },
            ],
            sticky: 'header:X-User-Id',
          },
        },
      },
      required: true,
    },
  },
  responses: {
    200: json('The rollout', RolloutAnswerShape()),
    ...errorsOf(...API_ERRORS, 'WRITES_DISABLED', 'BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'LIMIT_EXCEEDED'),
  },
}))

const getRoute = defineRoute('get', '/api/prompts/{prompt_id}/rollout', () => ({
  tags: ['versions'],
  summary: 'The rollout serving a prompt',
  description: `As \`?label=\` sees it: the label's own when the label has its own record of the prompt, else the base's. 404 NOT_FOUND when there is none. ${SERVING}`,
  request: { params: params(), query: ReadQuery() },
  responses: {
    200: json('The rollout', RolloutAnswerShape()),
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND', 'CONFLICT'),
  },
}))

const deleteRoute = defineRoute('delete', '/api/prompts/{prompt_id}/rollout', () => ({
  tags: ['writes'],
  summary: "Ends a prompt's rollout: its newest version serves again",
  description:
    "Needs ADMIN_TOKEN. Answers the rollout ended; 404 NOT_FOUND when there is none (in `?label=`'s own record).",
  middleware: [adminAuth],
  request: { params: params(), query: ReadQuery() },
  responses: {
    200: json('The rollout ended', RolloutAnswerShape()),
    ...errorsOf(...API_ERRORS, 'WRITES_DISABLED', 'BAD_REQUEST', 'NOT_FOUND', 'CONFLICT'),
  },
}))

/** A rollout started, changed or ended: in the log line and the audit trail, then answered. */
async function logged(c: Context<AppEnv>, action: 'rollout' | 'rollout-end', rollout: RolloutAnswer) {
  const { id, label, versions } = rollout
  requestLog()?.set(action === 'rollout' ? 'rollout_set' : 'rollout_ended', { id, label, versions })
  const made = { action, kind: 'prompts' as const, id, label, versions: versions.map((v) => v.version) }
  await recordChanges(c, changesOf(c, [made]))
  return success(c, rollout)
}

/** A prompt's rollout (lib/rollout): started or changed, shown, ended. */
export const rollouts = new Routes()
  .openapi(putRoute, async (c) => {
    requireScope(c, 'rollout')
    const { prompt_id } = c.req.valid('param')
    const rollout = await putRollout(writerOf(c), prompt_id, labelOf(c), c.req.valid('json'))
    return logged(c, 'rollout', rollout)
  })
  .openapi(getRoute, async (c) => success(c, await getRollout(writerOf(c), c.req.valid('param').prompt_id, labelOf(c))))
  .openapi(deleteRoute, async (c) => {
    requireScope(c, 'rollout')
    const rollout = await endRollout(writerOf(c), c.req.valid('param').prompt_id, labelOf(c))
    return logged(c, 'rollout-end', rollout)
  })
