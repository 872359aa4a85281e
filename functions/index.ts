import { OpenAPIHono } from '@hono/zod-openapi'
import { bearerAuth, corsFromEnv, onError, requestLogger, unroutedHandler, validationHook } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { chat } from './chat'
import { docs } from './docs'
import { environs } from './environs'
import { extensions } from './extensions'
import { health } from './health'
import { prompts } from './prompts'
import { tools } from './tools'

/**
 * The Worker: one Hono app, one route group per module, each route declared
 * with its OpenAPI description. Every request gets one log line and an id;
 * CORS_ORIGINS, when set, answers preflights before authentication; /api
 * needs the bearer token when API_TOKEN is set. Handlers are thin: lib/
 * does the work, and onError turns every failure into the error body.
 */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

app.use('*', requestLogger)
app.use('*', corsFromEnv)
app.use('/api/*', bearerAuth)

app.route('/', health)
app.route('/api/extensions', extensions)
app.route('/api/prompts', prompts)
app.route('/api/prompts', chat)
app.route('/api/environs', environs)
app.route('/api/tools', tools)
app.route('/', docs)

app.notFound(unroutedHandler(app))
app.onError(onError)

export default app
