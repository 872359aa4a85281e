import { Hono } from 'hono/quick'
import {
  bearerAuth,
  corsFromEnv,
  onError,
  requestContext,
  queue,
  requestLogger,
  scheduled,
  unroutedHandler,
} from '../lib/http'
import type { AppEnv } from '../lib/http'
import { audit } from './audit'
import { approvals } from './approvals'
import { chat } from './chat'
import { docs } from './docs'
import { drafts } from './drafts'
import { environs } from './environs'
import { health } from './health'
import { labels } from './labels'
import { mcp } from './mcp'
import { promptTests } from './prompt-tests'
import { prompts } from './prompts'
import { published } from './published'
import { rollbacks } from './rollback'
import { rollouts } from './rollouts'
import { v1ChatCompletions } from './v1-chat-completions'
import { v1Models } from './v1-models'
import { v1Responses } from './v1-responses'
import { versions } from './versions'
import { writes } from './writes'

/**
 * The Worker: one Hono app, one route group per module, each route declared
 * with its OpenAPI description at its full path (search for it with its
 * method). Every request gets its context (settings, store: lib/http/context.ts),
 * one log line and an id; CORS_ORIGINS, when set, answers preflights before
 * authentication. Handlers are thin: lib/ does the work, and onError turns
 * every failure into the error body. Hono's quick preset: its LinearRouter
 * builds nothing before the first match, which a Worker's cold start would pay for.
 *
 * Every route (test/unit/url-map.test.ts holds this table to the app):
 *
 * | method | path                                              | module                 | auth        |
 * | ------ | ------------------------------------------------- | ---------------------- | ----------- |
 * | GET    | /health                                           | health.ts              | open        |
 * | GET    | /api/extensions                                   | published.ts           | API_TOKEN   |
 * | GET    | /api/extensions/{extension_id}                    | published.ts           | API_TOKEN   |
 * | GET    | /api/tools                                        | published.ts           | API_TOKEN   |
 * | GET    | /api/tools/{tool_id}                              | published.ts           | API_TOKEN   |
 * | GET    | /api/prompts                                      | prompts.ts             | API_TOKEN   |
 * | GET    | /api/prompts/{prompt_id}                          | prompts.ts             | API_TOKEN   |
 * | POST   | /api/prompts/{prompt_id}/render                   | prompts.ts             | API_TOKEN   |
 * | POST   | /api/prompts/{prompt_id}/chat                     | chat.ts                | API_TOKEN   |
 * | POST   | /api/prompts/{prompt_id}/test                     | prompt-tests.ts        | API_TOKEN   |
 * | POST   | /api/test                                         | prompt-tests.ts        | API_TOKEN   |
 * | POST   | /api/render                                       | drafts.ts              | API_TOKEN   |
 * | GET    | /api/environs                                     | environs.ts            | API_TOKEN   |
 * | GET    | /api/environs/{environ_id}                        | environs.ts            | API_TOKEN   |
 * | GET    | /api/extensions/{extension_id}/versions           | versions.ts            | API_TOKEN   |
 * | GET    | /api/extensions/{extension_id}/versions/{version} | versions.ts            | API_TOKEN   |
 * | GET    | /api/prompts/{prompt_id}/versions                 | versions.ts            | API_TOKEN   |
 * | GET    | /api/prompts/{prompt_id}/versions/{version}       | versions.ts            | API_TOKEN   |
 * | GET    | /api/environs/{environ_id}/versions               | versions.ts            | API_TOKEN   |
 * | GET    | /api/environs/{environ_id}/versions/{version}     | versions.ts            | API_TOKEN   |
 * | GET    | /api/tools/{tool_id}/versions                     | versions.ts            | API_TOKEN   |
 * | GET    | /api/tools/{tool_id}/versions/{version}           | versions.ts            | API_TOKEN   |
 * | PUT    | /api/prompts/{prompt_id}/rollout                  | rollouts.ts            | ADMIN_TOKEN |
 * | GET    | /api/prompts/{prompt_id}/rollout                  | rollouts.ts            | API_TOKEN   |
 * | DELETE | /api/prompts/{prompt_id}/rollout                  | rollouts.ts            | ADMIN_TOKEN |
 * | PUT    | /api/extensions/{extension_id}                    | writes.ts              | ADMIN_TOKEN |
 * | DELETE | /api/extensions/{extension_id}                    | writes.ts              | ADMIN_TOKEN |
 * | PUT    | /api/prompts/{prompt_id}                          | writes.ts              | ADMIN_TOKEN |
 * | DELETE | /api/prompts/{prompt_id}                          | writes.ts              | ADMIN_TOKEN |
 * | PUT    | /api/environs/{environ_id}                        | writes.ts              | ADMIN_TOKEN |
 * | DELETE | /api/environs/{environ_id}                        | writes.ts              | ADMIN_TOKEN |
 * | PUT    | /api/tools/{tool_id}                              | writes.ts              | ADMIN_TOKEN |
 * | DELETE | /api/tools/{tool_id}                              | writes.ts              | ADMIN_TOKEN |
 * | POST   | /api/extensions/{extension_id}/rollback           | rollback.ts            | ADMIN_TOKEN |
 * | POST   | /api/prompts/{prompt_id}/rollback                 | rollback.ts            | ADMIN_TOKEN |
 * | POST   | /api/environs/{environ_id}/rollback               | rollback.ts            | ADMIN_TOKEN |
 * | POST   | /api/tools/{tool_id}/rollback                     | rollback.ts            | ADMIN_TOKEN |
 * | GET    | /api/labels                                       | labels.ts              | API_TOKEN   |
 * | POST   | /api/labels/{label}/promote                       | labels.ts              | ADMIN_TOKEN |
 * | GET    | /api/audit                                        | audit.ts               | API_TOKEN   |
 * | POST   | /api/labels/{label}/promote/requests/{n}/approve  | approvals.ts           | ADMIN_TOKEN |
 * | POST   | /mcp                                              | mcp.ts                 | API_TOKEN   |
 * | GET    | /mcp                                              | mcp.ts                 | API_TOKEN   |
 * | DELETE | /mcp                                              | mcp.ts                 | API_TOKEN   |
 * | POST   | /v1/responses                                     | v1-responses.ts        | API_TOKEN   |
 * | POST   | /v1/chat/completions                              | v1-chat-completions.ts | API_TOKEN   |
 * | GET    | /v1/models                                        | v1-models.ts           | API_TOKEN   |
 * | GET    | /openapi.json                                     | docs.ts                | open        |
 * | GET    | /docs                                             | docs.ts                | open        |
 * | GET    | /                                                 | docs.ts                | open        |
 *
 * API_TOKEN: the bearer token when API_TOKEN is set (a publisher's too);
 * ADMIN_TOKEN: writes are enabled by a publisher (ADMIN_TOKEN or
 * PUBLISHERS) and need its token, and each route a scope of it
 * (lib/publishers.ts). Each group declares its
 * routes' full paths and is mounted once, at `/`.
 */
const app = new Hono<AppEnv>()

app.use('*', requestContext)
app.use('*', requestLogger)
app.use('*', corsFromEnv)
app.use('/api/*', bearerAuth)
app.use('/mcp', bearerAuth)
// OpenAI's clients send their apiKey as this bearer token: the service's API_TOKEN.
app.use('/v1/*', bearerAuth)

app.route('/', health)
app.route('/', published)
app.route('/', prompts)
app.route('/', chat)
app.route('/', promptTests)
app.route('/', drafts)
app.route('/', environs)
app.route('/', versions)
app.route('/', rollouts)
app.route('/', writes)
app.route('/', rollbacks)
app.route('/', labels)
app.route('/', audit)
app.route('/', approvals)
app.route('/', mcp)
app.route('/', v1Responses)
app.route('/', v1ChatCompletions)
app.route('/', v1Models)
app.route('/', docs)

app.notFound(unroutedHandler(app))
app.onError(onError)

/**
 * The Worker's handlers: the app answers requests (its `fetch`),
 * `scheduled` runs the Cron Trigger's work (lib/http/scheduled.ts), and
 * `queue` delivers the change events of CHANGE_EVENTS (lib/http/queue.ts). The app
 * itself is the default export, given its `scheduled`, so that what reads
 * its routes (the tests, the OpenAPI generator) reads it as it is.
 */
export default Object.assign(app, { scheduled, queue })
