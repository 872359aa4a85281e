import * as z from 'zod/mini'
import type { Context, Handler } from 'hono'
import { ID_KIND } from '../lib/catalog'
import type { RecordKind } from '../lib/catalog'
import {
  API_ERRORS,
  adminAuth,
  changeOf,
  errorsOf,
  json,
  labelOf,
  recordBody,
  recordSchema,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  once,
  sendChangeEventsOf,
  settingsOf,
  writerOf,
} from '../lib/http'
import type { AppEnv } from '../lib/http'
import { requestLog } from '../lib/log'
import { deleteRecord, putRecord } from '../lib/publish'
import { BODY_LIMITS, LabelQuery, idParam } from './shapes'

/**
 * How each kind's id is named in its path, its body's schema (made on first
 * use), how a summary names one, and the id of one in examples/ (what /docs
 * pre-fills for a read).
 */
export const KIND_ROUTES = {
  extensions: {
    param: 'extension_id',
    schema: () => recordSchema('Extension'),
    named: 'an extension',
    example: 'evaluator',
  },
  prompts: {
    param: 'prompt_id',
    schema: () => recordSchema('Prompt'),
    named: 'a prompt',
    example: 'evaluator.quick_review',
  },
  environs: {
    param: 'environ_id',
    schema: () => described(z.unknown(), { description: 'The value: any JSON.' }),
    named: 'a shared variable (environ)',
    example: 'vscode.rules',
  },
  tools: { param: 'tool_id', schema: () => recordSchema('Tool'), named: 'a tool', example: 'codebase_lookup_ref' },
} as const satisfies Record<RecordKind, unknown>

/**
 * What /docs pre-fills for a write: a record of its own beside examples/
 * (put, then deleted, it leaves the examples as they were), valid as the
 * catalogue reads its kind (test/unit/openapi-examples.test.ts).
 */
const WRITE_EXAMPLES = {
  extensions: {
    id: 'team',
    body: {
      name: 'team',
      version: '1.0.0',
      extensionType: 'prompt',
      description: "The team's own prompts",
      contributes: {
        prompts: [
          {
            name: 'summary',
            prompt: 'Summarize this change in one sentence:\n{{.args.diff}}',
            parameters: { diff: { type: 'string', description: 'The change, as a diff' } },
          },
        ],
      },
    },
  },
  prompts: {
    id: 'team.review',
    body: {
      description: "A review against the team's rules",
      prompt: 'Review this {{.vscode.programming_language}} code for {{join ", " .vscode.rules}}:\n{{.args.code}}',
      supports: ['chat'],
      parameters: {
        type: 'object',
        properties: { code: { type: 'string', description: 'The code to review' } },
        required: ['code'],
      },
    },
  },
  environs: { id: 'team.style', body: { tone: 'direct', max_words: 120 } },
  tools: {
    id: 'team_search',
    body: {
      name: 'search',
      module: 'team',
      type: 'restful',
      restful: { url: '/team/search/{query}', method: 'GET' },
      description: "Searches the team's wiki",
      parameters: { query: { type: 'string', description: 'What to look for' } },
    },
  },
} as const satisfies Record<RecordKind, { id: string; body: unknown }>

/** The longest `?message=` kept with a version. */
const MAX_MESSAGE_CHARS = 500

const WriteQuery = once(() =>
  z.object({
    label: LabelQuery(),
    message: described(z.optional(z.string().check(z.maxLength(MAX_MESSAGE_CHARS))), {
      description: 'Kept with the version, such as `tighter wording` (at most 500 characters).',
    }),
  }),
)

/** A PUT's query: a write's, and whether to leave a record stored as it is unchanged. */
const PutQuery = once(() =>
  z.extend(WriteQuery(), {
    skip_unchanged: described(z.optional(z.enum(['true', 'false'])), {
      description:
        'With `true`, a body whose text the record already stores as its newest version writes nothing: the answer is that version, with `unchanged: true`.',
    }),
  }),
)

const Written = once(() =>
  described(
    z.object({
      id: z.string(),
      key: described(z.string(), {
        description: "The Redis key written: the base key, or the label's own.",
        example: 'shenma:templates:team:review',
      }),
      version: described(z.int(), { example: 3 }),
      label: z.nullable(z.string()),
      unchanged: described(z.optional(z.literal(true)), {
        description: 'Present when `?skip_unchanged=true` found the text stored already: nothing was written.',
      }),
    }),
    { id: 'Written' },
  ),
)
const WriteAnswer = once(() => successOf('WriteAnswer', Written()))

const WRITE_ERRORS = [...API_ERRORS, 'WRITES_DISABLED', 'BAD_REQUEST', 'CONFLICT'] as const

/** The kinds whose records hold templates. */
const TEMPLATED: ReadonlySet<RecordKind> = new Set(['extensions', 'prompts'])

/** The declaration of a write of a kind's record: `PUT /api/{kind}/{id}`. */
function putDeclaration(kind: RecordKind) {
  return () => ({
    tags: ['writes'],
    summary: `Writes ${KIND_ROUTES[kind].named}, as a new version`,
    description: `Needs ADMIN_TOKEN. The body is checked as the catalogue reads ${kind}${TEMPLATED.has(kind) ? ' (templates parsed)' : ''}; nothing is written when it fails.${kind === 'tools' ? ' Its `{module}_{name}` must be the tool_id.' : ''} ${BODY_LIMITS}`,
    middleware: [adminAuth, ...recordBody],
    request: {
      params: paramsOf(kind),
      query: PutQuery(),
      body: {
        content: { 'application/json': { schema: KIND_ROUTES[kind].schema(), example: WRITE_EXAMPLES[kind].body } },
        required: true,
      },
    },
    responses: {
      200: json('Written', WriteAnswer()),
      ...errorsOf(...WRITE_ERRORS, 'TEMPLATE_SYNTAX', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'),
    },
  })
}

/** The declaration of a deletion of a kind's record: `DELETE /api/{kind}/{id}`. */
function deleteDeclaration(kind: RecordKind) {
  return () => ({
    tags: ['writes'],
    summary: `Deletes ${KIND_ROUTES[kind].named}, as a new version (under a label: hides it there)`,
    description: 'Needs ADMIN_TOKEN.',
    middleware: [adminAuth],
    request: { params: paramsOf(kind), query: WriteQuery() },
    responses: {
      200: json('Deleted', WriteAnswer()),
      ...errorsOf(...WRITE_ERRORS, 'NOT_FOUND'),
    },
  })
}

function paramsOf(kind: RecordKind) {
  const singular = ID_KIND[kind]
  return z.object({ [KIND_ROUTES[kind].param]: idParam(singular, `The ${singular} id.`, WRITE_EXAMPLES[kind].id) })
}

function optionsOf(c: Context<AppEnv>) {
  return {
    label: labelOf(c),
    message: c.req.query('message') || undefined,
    historyLimit: settingsOf(c).historyLimit,
    maxCases: settingsOf(c).tests.maxCases,
  }
}

/** The handler of a write of a kind's record. */
function put(kind: RecordKind): Handler<AppEnv> {
  return async (c) => {
    const id = c.req.param(KIND_ROUTES[kind].param) as string
    const skipUnchanged = c.req.query('skip_unchanged') === 'true'
    const written = await putRecord(writerOf(c), kind, id, await c.req.json(), { ...optionsOf(c), skipUnchanged })
    requestLog()?.set('written', { key: written.key, version: written.version })
    // Until the audit's recordChanges sends them (design34.md): a write that changed nothing is no change.
    if (written.unchanged !== true) {
      sendChangeEventsOf(c, [
        changeOf(c, { action: 'write', kind, id, label: written.label, versions: [written.version] }),
      ])
    }
    return success(c, written)
  }
}

/** The handler of a deletion of a kind's record. */
function remove(kind: RecordKind): Handler<AppEnv> {
  return async (c) => {
    const id = c.req.param(KIND_ROUTES[kind].param) as string
    const written = await deleteRecord(writerOf(c), kind, id, optionsOf(c))
    requestLog()?.set('written', { key: written.key, version: written.version })
    return success(c, written)
  }
}

/**
 * Writes through the service, each a new version of the record
 * (lib/publish), enabled by ADMIN_TOKEN. `?label=` writes the label's own records.
 */
export const writes = new Routes()
  .openapi(defineRoute('put', '/api/extensions/{extension_id}', putDeclaration('extensions')), put('extensions'))
  .openapi(
    defineRoute('delete', '/api/extensions/{extension_id}', deleteDeclaration('extensions')),
    remove('extensions'),
  )
  .openapi(defineRoute('put', '/api/prompts/{prompt_id}', putDeclaration('prompts')), put('prompts'))
  .openapi(defineRoute('delete', '/api/prompts/{prompt_id}', deleteDeclaration('prompts')), remove('prompts'))
  .openapi(defineRoute('put', '/api/environs/{environ_id}', putDeclaration('environs')), put('environs'))
  .openapi(defineRoute('delete', '/api/environs/{environ_id}', deleteDeclaration('environs')), remove('environs'))
  .openapi(defineRoute('put', '/api/tools/{tool_id}', putDeclaration('tools')), put('tools'))
  .openapi(defineRoute('delete', '/api/tools/{tool_id}', deleteDeclaration('tools')), remove('tools'))
