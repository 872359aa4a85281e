// A real redis-server on a free loopback port, saving nothing to disk: the
// Redis of `npm run dev:redis`, the tests and the benchmarks. Stopped with
// the process that started it.
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { constants } from 'node:fs'
import { access } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { freePort } from './ports'

export interface RedisServer {
  port: number
  stop(): Promise<void>
}

const READY_LINE = 'Ready to accept connections'
// The port is freed before redis binds it, so another process can grab it in
// between; a fresh port usually wins. One attempt plus three retries.
const MAX_ATTEMPTS = 4

/** No redis-server on PATH: its message is the one line that says how to install it. */
export class RedisServerMissing extends Error {
  constructor() {
    super(
      'redis-server was not found on PATH: install it (Debian or Ubuntu: `apt-get install -y redis-server`; ' +
        'macOS: `brew install redis`)',
    )
  }
}

export interface RedisOptions {
  /** How many logical databases it has (redis-server's default: 16). */
  databases?: number
}

/** Starts redis-server; throws RedisServerMissing when there is none on PATH. */
export async function startRedis(options: RedisOptions = {}): Promise<RedisServer> {
  const binary = await findOnPath('redis-server')
  if (!binary) throw new RedisServerMissing()

  const failures: string[] = []
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const port = await freePort()
    const started = await launch(binary, port, options.databases ?? 16)
    if (started.ok) return started.server
    failures.push(`attempt ${attempt} (port ${port}):\n${started.output}`)
  }
  throw new Error(`redis-server did not start:\n${failures.join('\n')}`)
}

type LaunchResult = { ok: true; server: RedisServer } | { ok: false; output: string }

function launch(binary: string, port: number, databases: number): Promise<LaunchResult> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--databases',
    String(databases),
    '--protected-mode',
    'no',
  ]
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })

  return new Promise((resolve) => {
    let output = ''
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8')
      // Checked on the accumulated text because the line may span chunks.
      if (output.includes(READY_LINE)) {
        cleanup()
        resolve({ ok: true, server: running(child, port) })
      }
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup()
      resolve({ ok: false, output: `${output}\n(exited with ${signal ?? code})` })
    }
    const onError = (error: Error): void => {
      cleanup()
      child.kill('SIGKILL')
      resolve({ ok: false, output: `${output}\n${error.message}` })
    }
    const cleanup = (): void => {
      child.stdout?.off('data', onData)
      child.stderr?.off('data', onData)
      child.off('exit', onExit)
      child.off('error', onError)
      // Keep draining the pipes: a full pipe would block redis on its next log line.
      child.stdout?.resume()
      child.stderr?.resume()
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', onExit)
    child.once('error', onError)
  })
}

function running(child: ChildProcess, port: number): RedisServer {
  // A crashed test run must not leave an orphaned redis-server behind.
  const killOnExit = (): void => {
    child.kill('SIGKILL')
  }
  process.once('exit', killOnExit)

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })

  return {
    port,
    async stop() {
      process.off('exit', killOnExit)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

async function findOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, name)
    try {
      await access(candidate, constants.X_OK)
      return candidate
    } catch {
      // Not in this directory; keep looking.
    }
  }
  return undefined
}
