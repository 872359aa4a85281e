import * as z from 'zod/mini'
import type { Handler } from 'hono'
import type { RecordKind } from '../lib/catalog'
import {
  adminAuth,
  errorsOf,
  json,
  labelOf,
  publisherOf,
  requireScope,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  once,
  settingsOf,
  writerOf,
  changesOf,
  recordChanges,
} from '../lib/http'
import type { AppEnv } from '../lib/http'
import { requestLog } from '../lib/log'
import { rollbackRecord } from '../lib/publish'
import { LabelQuery, versionNumber } from './shapes'
import { KIND_ROUTES, MAX_MESSAGE_CHARS, WRITE_ERRORS, Written, paramsOf } from './writes'

const RollbackQuery = once(() =>
  z.object({
    to: described(versionNumber(), { description: 'The version to write again (see the versions list).' }),
    label: LabelQuery(),
    message: described(z.optional(z.string().check(z.maxLength(MAX_MESSAGE_CHARS))), {
      description: 'Kept with the version written (at most 500 characters); unset, `rollback to version N`.',
    }),
  }),
)

const RolledBack = once(() =>
  described(
    z.extend(Written(), { to: described(z.int(), { description: 'The version written again.', example: 1 }) }),
    { id: 'RolledBack' },
  ),
)
const RollbackAnswer = once(() => successOf('RollbackAnswer', RolledBack()))

/** The declaration of a rollback of a kind's record: `POST /api/{kind}/{id}/rollback`. */
function rollbackDeclaration(kind: RecordKind) {
  return () => ({
    tags: ['writes'],
    summary: `Writes a version of ${KIND_ROUTES[kind].named} again, as a new version`,
    description:
      "Needs a publisher with the scope `rollback`. As `?label=` sees the record: the label's own record's version where it has one, else the base's, written where that label writes. A version that is a deletion is 409 CONFLICT; a prompt contributed by an extension is rolled back with its extension (409 CONFLICT saying so).",
    middleware: [adminAuth],
    request: { params: paramsOf(kind), query: RollbackQuery() },
    responses: {
      200: json('Written again', RollbackAnswer()),
      ...errorsOf(...WRITE_ERRORS, 'NOT_FOUND', 'VERSION_NOT_FOUND'),
    },
  })
}

/** The handler of a rollback of a kind's record. */
function rollback(kind: RecordKind): Handler<AppEnv> {
  return async (c) => {
    requireScope(c, 'rollback')
    const id = c.req.param(KIND_ROUTES[kind].param) as string
    const to = Number(c.req.query('to'))
    const written = await rollbackRecord(writerOf(c), kind, id, to, {
      label: labelOf(c),
      message: c.req.query('message') || undefined,
      by: publisherOf(c).name,
      historyLimit: settingsOf(c).historyLimit,
      maxCases: settingsOf(c).tests.maxCases,
    })
    requestLog()?.set('written', { key: written.key, version: written.version, rollback_to: to })
    const made = { action: 'rollback' as const, kind, id, label: written.label, versions: [written.version, to] }
    await recordChanges(c, changesOf(c, [made]))
    return success(c, written)
  }
}

/** Rollbacks made by the service itself: `ai-prompt-shell rollback` through the API sends one. */
export const rollbacks = new Routes()
  .openapi(
    defineRoute('post', '/api/extensions/{extension_id}/rollback', rollbackDeclaration('extensions')),
    rollback('extensions'),
  )
  .openapi(
    defineRoute('post', '/api/prompts/{prompt_id}/rollback', rollbackDeclaration('prompts')),
    rollback('prompts'),
  )
  .openapi(
    defineRoute('post', '/api/environs/{environ_id}/rollback', rollbackDeclaration('environs')),
    rollback('environs'),
  )
  .openapi(defineRoute('post', '/api/tools/{tool_id}/rollback', rollbackDeclaration('tools')), rollback('tools'))
