import * as z from 'zod/mini'
import {
  DEFAULT_PAGE,
  ID_RULES,
  MAX_CURSOR_CHARS,
  MAX_ID_LENGTH,
  MAX_PAGE,
  MESSAGE_ROLES,
  TOO_LONG,
} from '../lib/catalog'
import type { IdKind, Message as MessageType, PageRequest } from '../lib/catalog'
import type { ErrorCode } from '../lib/errors'
import { described, once } from '../lib/http'
import { MAX_JSON_DEPTH } from '../lib/json'

/** Request and answer shapes the routes share. */

/**
 * A path parameter naming a record, checked (length first, which bounds the
 * pattern's work) before any Redis request; OpenAPI shows the limits.
 */
export function idParam(kind: IdKind, description: string, example: string) {
  const rule = ID_RULES[kind]
  const id = z
    .string()
    .check(z.maxLength(MAX_ID_LENGTH, { error: TOO_LONG, abort: true }), z.regex(rule.pattern, rule.problem))
  return described(id, { description, example })
}

export const PromptId = once(() =>
  idParam(
    'prompt',
    '`{extension}.{prompt}`, or the path of a prompt stored directly under shenma:templates:',
    'evaluator.quick_review',
  ),
)

export const Args = once(() =>
  described(z.record(z.string(), z.unknown()), {
    description: "The prompt's args, checked against its parameters; templates read them as `.args`.",
    example: { code: 'func main() {}' },
  }),
)

/** Shared variables a request lays over the stored ones, for its render only (a draft's, a draft chat's). */
export const DraftVariables = once(() =>
  described(z.record(z.string(), z.unknown()), {
    description:
      'Deep-merged over the shared variables for this render only, never written: objects merge key by key, anything else replaces.',
    example: { vscode: { programming_language: 'go' } },
  }),
)

/** A draft's fields that were given: the record checked as stored ones are, with no `undefined` members. */
export function definedOnly(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined))
}

/** A prompt record not stored, as a chat or a test run takes it: its template, and any other field of the record. */
export const DraftRecord = once(() =>
  z.object({
    prompt: z.optional(z.string()),
    messages: z.optional(z.array(Message())),
    parameters: z.optional(z.unknown()),
    returns: z.optional(z.unknown()),
    tools: z.optional(z.array(z.string())),
  }),
)

/** What every JSON body is bounded by, said once for the OpenAPI descriptions. */
export const BODY_LIMITS = `At most MAX_BODY_BYTES (default 1 MiB; past it, 413 PAYLOAD_TOO_LARGE), nested at most ${MAX_JSON_DEPTH} levels deep.`

/** lib/catalog's Message(), as OpenAPI shows it. */
export const Message = once(
  () =>
    described(z.object({ role: z.enum(MESSAGE_ROLES), content: z.string() }), {
      id: 'Message',
    }) satisfies z.ZodMiniType<MessageType>,
)

/** Every way a render fails, before any LLM is asked. */
export const RENDER_ERRORS = [
  'BAD_REQUEST',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INVALID_ARGS',
  'TEMPLATE_SYNTAX',
  'MISSING_VARIABLE',
  'NOT_FOUND',
  'LIMIT_EXCEEDED',
  'RENDER_FAILED',
  'RENDER_TIMEOUT',
] as const satisfies readonly ErrorCode[]

/*
 * No query parameter has an `example`: Swagger UI would pre-fill it, and
 * "Try it out" would ask for a label or a version the example catalogue does
 * not have (test/unit/openapi-examples.test.ts). Their descriptions show one.
 */

/** `?label=`: every route reads (and writes) as a label sees the records (lib/http/context.ts checks it). */
export const LabelQuery = once(() =>
  described(z.optional(z.string()), {
    description:
      "The label (branch) to read or write, such as `feat-login`: its own records over the base's. Unset, the deployment's PROMPT_LABEL; empty, the base. 1 to 63 of a-z, 0-9 and '-', not starting with '-'.",
  }),
)

/** A version of a record, as a path or query parameter: one of its own, for what the document says of it. */
export const versionNumber = () => z.string().check(z.regex(/^[1-9][0-9]{0,8}$/, 'must be a version number, 1 or more'))

/** `?version=N`: exactly that version of the prompt's record. */
export const VersionQuery = once(() =>
  described(z.optional(versionNumber()), {
    description:
      "Serve exactly this version of the prompt's record, such as `3` (404 VERSION_NOT_FOUND when it is not kept; the embedded store keeps none).",
  }),
)

/** The query of a route that reads a prompt: its label, and a version. */
export const PromptQuery = once(() => z.object({ label: LabelQuery(), version: VersionQuery() }))

/** `?explain=true`: the answer says what the templates read and call, and where the time went. */
export const ExplainQuery = once(() =>
  described(z.optional(z.enum(['true', 'false'])), {
    description: '`true`: also answer with `analysis` and `timing`.',
  }),
)

/** The query of every other reading route. */
export const ReadQuery = once(() => z.object({ label: LabelQuery() }))

const LIMIT_RULE = `must be an integer from 1 to ${MAX_PAGE}`

/** The query of a listing: its label, and which page (lib/catalog/paging.ts). */
export const ListQuery = once(() =>
  z.object({
    label: LabelQuery(),
    limit: described(
      z.optional(
        z.string().check(
          z.regex(/^[1-9][0-9]{0,3}$/, LIMIT_RULE),
          z.refine((limit) => Number(limit) <= MAX_PAGE, LIMIT_RULE),
        ),
      ),
      { description: `Items per page at most, 1 to ${MAX_PAGE}; ${DEFAULT_PAGE} when unset.` },
    ),
    cursor: described(
      z.optional(
        z
          .string()
          .check(
            z.maxLength(MAX_CURSOR_CHARS, { error: 'is not one this listing gave', abort: true }),
            z.regex(/^[A-Za-z0-9_-]+$/, 'is not one this listing gave'),
          ),
      ),
      {
        description:
          'Where the page starts: the `next_cursor` of the page before, as answered (opaque). Walking them lists every record once, in the byte order of its key.',
      },
    ),
  }),
)

/** The page a listing's query asks for. */
export function pageAsked(query: { limit?: string | undefined; cursor?: string | undefined }): PageRequest {
  return { cursor: query.cursor, limit: query.limit === undefined ? undefined : Number(query.limit) }
}

/** The headers of an answer made from a prompt (servedHeaders), as OpenAPI shows them. */
export const ServedHeaders = once(() =>
  z.object({
    'X-Prompt-Version': described(z.string(), {
      description: "The version of the prompt's record served, or `unversioned` (written by other means).",
      example: '3',
    }),
    'X-Prompt-Label': described(z.optional(z.string()), {
      description: "The label whose own record was served; absent for the base's.",
      example: 'feat-login',
    }),
  }),
)

/** The version a read served, as the answer's headers; none for a draft, which no record served. */
export function servedHeaders(served: { version: number | null; label?: string } | undefined): Record<string, string> {
  if (served === undefined) return {}
  const headers: Record<string, string> = { 'X-Prompt-Version': String(served.version ?? 'unversioned') }
  if (served.label !== undefined) headers['X-Prompt-Label'] = served.label
  return headers
}

/**
 * The headers of a chat's answer, /chat's or /v1's: its type, Server-Timing
 * (made once the work is done: a stream's until its first chunk), the
 * version served, and the parameters the provider's API could not take
 * (left out rather than sent to fail: said, not silent).
 */
export function chatHeaders(answer: {
  streamed: boolean
  timing: string | undefined
  served: Parameters<typeof servedHeaders>[0]
  dropped: readonly string[]
}): Record<string, string> {
  return {
    'content-type': answer.streamed ? 'text/event-stream; charset=utf-8' : 'application/json',
    ...(answer.timing === undefined ? {} : { 'server-timing': answer.timing }),
    ...servedHeaders(answer.served),
    ...(answer.streamed ? { 'cache-control': 'no-cache' } : {}),
    ...(answer.dropped.length > 0 ? { 'x-llm-dropped-parameters': answer.dropped.join(', ') } : {}),
  }
}

const Explanation = once(() => ({
  analysis: described(
    z.object({
      reads: described(z.array(z.string()), {
        description:
          'The variable paths its templates may read, dotted (`args.code`, `vscode.rules`; `.` is the whole root), sorted.',
        example: ['args.code', 'vscode'],
      }),
      tools: described(z.array(z.string()), { description: 'The tools its templates call.' }),
      functions: described(z.array(z.string()), {
        description: 'Every function its templates call: builtins, helpers, tools.',
      }),
    }),
    { id: 'RenderAnalysis' },
  ),
  timing: described(
    z.object({
      total_ms: z.number(),
      phases: described(z.record(z.string(), z.number()), {
        description: 'Milliseconds in `redis`, `tools`, `render`.',
      }),
      calls: z.array(
        z.object({
          tool: z.string(),
          start_ms: described(z.number(), { description: "When the call started, from the request's start." }),
          ms: z.number(),
          outcome: z.enum(['ok', 'failed']),
        }),
      ),
    }),
    { id: 'RenderTiming', description: 'Where the time went: per phase, and per tool call (a waterfall).' },
  ),
  variables: described(
    z.array(
      z.object({
        path: described(z.string(), { example: 'vscode.programming_language' }),
        value: described(z.optional(z.unknown()), { description: 'Its JSON as the render saw it.' }),
        missing: described(z.optional(z.literal(true)), { description: 'Nothing is stored at it.' }),
        overridden: described(z.optional(z.literal(true)), {
          description: "The request's `variables` set it, a path below it, or replaced an object above it.",
        }),
        truncated: described(z.optional(z.literal(true)), {
          description: 'Its JSON is over 4,096 characters: `preview` instead of `value`.',
        }),
        preview: described(z.optional(z.string()), { description: 'The first 2,000 characters of its JSON.' }),
        age_ms: described(z.union([z.number(), z.null()]), {
          description:
            "How long ago the service's copy of the shared variables was read from Redis: 0 when this render read them; null on the embedded store, whose variables are built in.",
        }),
      }),
    ),
    {
      id: 'RenderVariables',
      description:
        'Each shared-variable path its templates read (the `reads` not under `args`), in that order, at most 200.',
    },
  ),
}))

/** A rendered prompt; explained (`?explain=true`, and every draft render), with what it read and where the time went. */
export const RenderAnswer = once(() =>
  described(
    z.object({
      status: z.literal('success'),
      rendered_prompt: described(z.union([z.string(), z.array(Message())]), {
        description: 'A string for a prompt of kind `prompt`; the messages, rendered, for kind `messages`.',
      }),
      warnings: described(
        z.optional(z.array(z.catchall(z.object({ code: z.string(), message: z.string() }), z.unknown()))),
        {
          description:
            "What degraded the render without failing it: a failed tool call (TOOL_FAILED), calls refused past TOOL_MAX_CALLS (TOOL_CALLS_REFUSED), a skipped record (RECORD_SKIPPED), an action that printed Go's `<no value>` (NO_VALUE: `template`, `line`, `column`, `expression`).",
        },
      ),
      analysis: z.optional(Explanation().analysis),
      timing: z.optional(Explanation().timing),
      variables: z.optional(Explanation().variables),
    }),
    { id: 'RenderAnswer' },
  ),
)

/** The Server-Timing header of a render's answer. */
export const RenderHeaders = once(() => ({
  'Server-Timing': described(z.string(), { example: 'redis;dur=2, tools;dur=0, render;dur=1, total;dur=3' }),
}))
