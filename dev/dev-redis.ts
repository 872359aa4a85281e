// `npm run dev:redis` (scripts/dev-redis.mjs): `npm run dev` on a local Redis
// that takes writes. Starts redis-server and the bridge, seeds the examples
// (dev/local-redis.ts), prints what to try, then runs `npm run dev` with its
// own arguments forwarded and Redis and ADMIN_TOKEN set; when that ends, for
// whatever reason, stops the bridge and redis-server, and exits with its status.
import { spawn } from 'node:child_process'
import { parseArgs } from 'node:util'
import { describeError } from '../lib/log'
import { startLocalRedis } from './local-redis'
import type { LocalRedis } from './local-redis'

/** The ADMIN_TOKEN of `npm run dev:redis`: fixed, so the README's writes run as pasted. Dev only, on loopback. */
export const DEV_ADMIN_TOKEN = 'dev-admin-token'

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** Runs the command with `args` (forwarded to `npm run dev`) from the repository at `root`; answers the exit status. */
export async function devRedis(args: readonly string[], root: string): Promise<number> {
  let local: LocalRedis
  try {
    local = await startLocalRedis(root)
  } catch (error) {
    // One line when redis-server is missing (RedisServerMissing says how to install it).
    process.stderr.write(`npm run dev:redis: ${describeError(error)}\n`)
    return 1
  }
  process.stdout.write(`${whatToTry(local, serviceOrigin(args)).join('\n')}\n\n`)

  const vars = {
    UPSTASH_REDIS_REST_URL: local.url,
    UPSTASH_REDIS_REST_TOKEN: local.token,
    ADMIN_TOKEN: DEV_ADMIN_TOKEN,
  }
  const varArgs = Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`])
  // Its own process group, which a signal to this process stops as a whole (npm passes signals on to
  // the shell under it, not through it to wrangler). Not the terminal's group, so no keyboard
  // (wrangler's hotkeys): a background group that reads the terminal is stopped by the kernel.
  const dev = spawn('npm', ['run', 'dev', '--', ...args, ...varArgs], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  })
  const stopDev = (signal: NodeJS.Signals): void => {
    if (dev.pid !== undefined && dev.exitCode === null && dev.signalCode === null) process.kill(-dev.pid, signal)
  }
  // Ctrl-C reaches this process's group, not the service's: passed on, as is any other stop.
  for (const signal of SIGNALS) process.on(signal, stopDev)
  const orphaned = (): void => stopDev('SIGTERM')
  process.once('exit', orphaned)
  const status = await new Promise<number>((resolve) => {
    dev.once('error', (error) => {
      process.stderr.write(`npm run dev:redis: could not start npm run dev: ${error.message}\n`)
      resolve(1)
    })
    dev.once('exit', (code) => resolve(code ?? 1))
  })
  process.off('exit', orphaned)
  for (const signal of SIGNALS) process.off(signal, stopDev)
  await local.stop()
  process.stdout.write('npm run dev:redis: stopped redis-server and the bridge; what was written is gone\n')
  return status
}

/** The service's origin as wrangler will serve it, from the forwarded `--ip` and `--port` (wrangler's defaults else). */
export function serviceOrigin(args: readonly string[]): string {
  const { values } = parseArgs({
    args: [...args],
    options: { ip: { type: 'string' }, port: { type: 'string' } },
    strict: false,
    allowPositionals: true,
  })
  const ip = typeof values.ip === 'string' ? values.ip : 'localhost'
  const port = typeof values.port === 'string' ? values.port : '8787'
  return `http://${ip.includes(':') ? `[${ip}]` : ip}:${port}`
}

/** The lines printed before the service starts: where Redis is, a PUT, a label, a promote, a rollback, the CLI. */
export function whatToTry(local: LocalRedis, origin: string): string[] {
  const host = origin.replace(/^http:\/\//, '')
  const admin = `-H 'authorization: Bearer ${DEV_ADMIN_TOKEN}'`
  const json = `-H 'content-type: application/json'`
  return [
    `Local Redis: redis-server on 127.0.0.1:${local.redisPort} (nothing saved to disk), behind the Upstash-protocol bridge at ${local.url}.`,
    `Seeded from examples/: ${local.seeded}`,
    `Writes take ADMIN_TOKEN ${DEV_ADMIN_TOKEN}. Once the service below is ready, try a PUT, a label, a promote, a rollback:`,
    `  curl -s -X PUT '${host}/api/prompts/team.greeting?message=first' ${admin} ${json} -d '{"prompt": "Hello {{.args.name}}"}'`,
    `  curl -s -X PUT '${host}/api/prompts/team.greeting?label=feat-warm' ${admin} ${json} -d '{"prompt": "Hello {{.args.name}}, welcome back"}'`,
    `  curl -s '${host}/api/prompts/team.greeting/render?label=feat-warm' ${json} -d '{"args": {"name": "Ada"}}'`,
    `  curl -s -X POST '${host}/api/labels/feat-warm/promote' ${admin}`,
    `  npx ai-prompt-shell rollback prompts team.greeting --to 1 --api ${origin} --admin-token ${DEV_ADMIN_TOKEN}`,
    `The CLI reaches it through the service (--api ${origin} --admin-token ${DEV_ADMIN_TOKEN})`,
    `or Redis directly (--url ${local.url} --token ${local.token}).`,
    `More in README.md, "Writes on a local Redis". Ctrl-C stops the service, the bridge and redis-server.`,
  ]
}
