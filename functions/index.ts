import { Hono } from 'hono/quick'
import { bearerAuth, corsFromEnv, onError, requestContext, requestLogger, unroutedHandler } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { chat } from './chat'
import { docs } from './docs'
import { drafts } from './drafts'
import { environs } from './environs'
import { extensions } from './extensions'
import { health } from './health'
import { labels } from './labels'
import { mcp } from './mcp'
import { prompts } from './prompts'
import { tools } from './tools'
import { versions } from './versions'
import { writes } from './writes'

/**
 * The Worker: one Hono app, one route group per module, each route declared
 * with its OpenAPI description. Every request gets one log line and an id;
 * CORS_ORIGINS, when set, answers preflights before authentication; /api
 * needs the bearer token when API_TOKEN is set, and writes ADMIN_TOKEN's. Every
 * route reads as `?label=` (or PROMPT_LABEL) sees the records. Handlers are thin: lib/
 * does the work, and onError turns every failure into the error body. Hono's
 * quick preset: its LinearRouter builds nothing before the first match, which
 * a Worker's cold start would pay for.
 */
const app = new Hono<AppEnv>()

app.use('*', requestContext)
app.use('*', requestLogger)
app.use('*', corsFromEnv)
app.use('/api/*', bearerAuth)
app.use('/mcp', bearerAuth)

app.route('/', health)
app.route('/api/extensions', extensions)
app.route('/api/prompts', prompts)
app.route('/api/prompts', chat)
app.route('/api/render', drafts)
app.route('/api/environs', environs)
app.route('/api/tools', tools)
app.route('/api', versions)
app.route('/api', writes)
app.route('/api/labels', labels)
app.route('/', mcp)
app.route('/', docs)

app.notFound(unroutedHandler(app))
app.onError(onError)

export default app
