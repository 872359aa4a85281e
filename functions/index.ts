import { Hono } from 'hono'
import { onError, storeOf, success, unroutedHandler } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { chat } from './chat'
import { environs } from './environs'
import { extensions } from './extensions'
import { prompts } from './prompts'
import { tools } from './tools'

/**
 * The Worker: one Hono app, one route group per module. Handlers are thin;
 * lib/ does the work, and onError turns every failure into the error body.
 */
const app = new Hono<AppEnv>()

app.get('/health', (c) => success(c, { store: storeOf(c).kind }))

app.route('/api/extensions', extensions)
app.route('/api/prompts', prompts)
app.route('/api/prompts', chat)
app.route('/api/environs', environs)
app.route('/api/tools', tools)

app.notFound(unroutedHandler(app))
app.onError(onError)

export default app
