// `npm run dev:redis`: `npm run dev` on a local redis-server that takes writes
// (dev/dev-redis.ts, loaded as the CLI is: scripts/load-ts.mjs). Its arguments
// are forwarded to `npm run dev` (`npm run dev:redis -- --port 8788`).
import { fileURLToPath } from 'node:url'
import { loadTs } from './load-ts.mjs'

const { devRedis } = await loadTs('dev/dev-redis.ts', 'node_modules/.cache/ai-prompt-shell/dev-redis.mjs')
// Exits once everything it started has stopped, whatever handle a library left open.
process.exit(await devRedis(process.argv.slice(2), fileURLToPath(new URL('..', import.meta.url))))
