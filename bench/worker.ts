/**
 * The Worker as the bench scripts run it: `wrangler dev` (workerd) reading a
 * real Redis through the Upstash-protocol bridge, with the example records
 * written as publishers write them. bench/endpoints.ts loads it;
 * bench/hostile.ts sends it hostile requests.
 *
 * startWrangler starts `npx wrangler dev` in the repository, in a process
 * group of its own (wrangler starts workerd, which must stop with it; and so
 * does the group if this process dies or is interrupted), with the given
 * variables as --var, and waits for "Ready on" in its output. Lines of its
 * output that report a problem are kept with the bench's phase they came in.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { Redis } from '@upstash/redis'
import { freePort } from '../test/support/ports'

/** How long wrangler may take to say "Ready on" (it builds first), and to stop. */
const READY_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 10_000
/** What of wrangler's output is kept: each line's first MAX_LINE_BYTES, the first MAX_PROBLEM_LINES problems, the last RECENT_LINES lines. */
const MAX_LINE_BYTES = 16 * 1024
const MAX_PROBLEM_LINES = 10_000
const RECENT_LINES = 200
const LF = 0x0a

export function log(message: string): void {
  process.stderr.write(`  ${message}\n`)
}

export async function takeDatabase(bridgeUrl: string): Promise<string> {
  const res = await fetch(`${bridgeUrl}/__bridge/databases`, { method: 'POST' })
  if (!res.ok) throw new Error(`the bridge refused a database: ${res.status} ${await res.text()}`)
  const { token } = (await res.json()) as { token: string }
  return token
}

/** The example records as publishers write them: each file's text under its key. Returns how many. */
export async function writeExamples(root: string, bridgeUrl: string, token: string): Promise<number> {
  const dir = join(root, 'examples')
  const records: Record<string, string> = {}
  for (const file of jsonFiles(dir)) {
    const key = 'shenma:' + relative(dir, file).slice(0, -'.json'.length).split(sep).join(':')
    records[key] = readFileSync(file, 'utf8')
  }
  const keys = Object.keys(records).sort()
  if (keys.length === 0) throw new Error(`no records under ${dir}`)
  // Values are JSON text: stored as they are, as the Worker reads them (it parses them itself).
  const redis = new Redis({ url: bridgeUrl, token, enableTelemetry: false, automaticDeserialization: false })
  await redis.mset(records)
  const stored = await redis.mget<(string | null)[]>(...keys)
  keys.forEach((key, i) => {
    if (stored[i] !== records[key]) throw new Error(`Redis gave back something else for ${key}`)
  })
  log(`wrote ${keys.length} example records into Redis: ${keys.join(', ')}`)
  return keys.length
}

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return jsonFiles(path)
      return entry.isFile() && entry.name.endsWith('.json') ? [path] : []
    })
    .sort()
}

/** One database of the bridge (test/support/upstash-bridge.ts): its counts, and what the bench does to it. */
export class BridgeStats {
  readonly #admin: string

  constructor(bridgeUrl: string, token: string) {
    this.#admin = `${bridgeUrl}/__bridge/databases/${token}`
  }

  async requests(): Promise<number> {
    return (await this.stats()).requests
  }

  /** Upstash requests since the last reset, and the commands they carried by name. */
  async stats(): Promise<{ requests: number; byCommand: Record<string, number> }> {
    const res = await fetch(`${this.#admin}/stats`)
    return (await res.json()) as { requests: number; byCommand: Record<string, number> }
  }

  async reset(): Promise<void> {
    await fetch(`${this.#admin}/stats/reset`, { method: 'POST' })
  }

  /** Adds `count` filler keys, written in Redis itself: half another application's, half chat histories under shenma:environs:. */
  async fill(count: number): Promise<void> {
    await this.#post('fill', { count })
  }

  /** Every later Upstash request waits `ms` before it runs: a Redis a region away. */
  async latency(ms: number): Promise<void> {
    await this.#post('latency', { ms })
  }

  /** While down, every Upstash request's connection closes unanswered: a Redis that is gone. */
  async down(down: boolean): Promise<void> {
    const res = await fetch(`${this.#admin}/down`, { method: down ? 'POST' : 'DELETE' })
    if (!res.ok) throw new Error(`the bridge refused to ${down ? 'take down' : 'restore'} Redis: ${res.status}`)
  }

  /** Gives the database back to the bridge, which flushes it. */
  async release(): Promise<void> {
    await fetch(this.#admin, { method: 'DELETE' })
  }

  async #post(route: string, body: unknown): Promise<void> {
    const res = await fetch(`${this.#admin}/${route}`, { method: 'POST', body: JSON.stringify(body) })
    if (!res.ok)
      throw new Error(`the bridge refused ${route} ${JSON.stringify(body)}: ${res.status} ${await res.text()}`)
  }
}

// ---------------------------------------------------------------- wrangler dev

/** A line of wrangler's output, with the phase of the bench it came in and when, in s from that phase's start. */
export interface Logged {
  line: string
  phase: string
  at: number
}

export interface WranglerDev {
  base: string
  version: string
  /** From now on, lines of output are logged as coming in this phase. */
  phase(name: string): void
  /** Lines of its output that look like errors or warnings. */
  problemLines(): Logged[]
  /** The resident memory of the workerd processes it started, in bytes (VmRSS, summed). */
  workerdRss(): number
  stop(): Promise<void>
}

export interface WranglerOptions {
  /** The Worker's entry module, instead of wrangler.toml's `main`. */
  script?: string
  /** Where it keeps its local state (the Cache API's among it); a fresh directory is a cold location. */
  persistTo?: string
}

/**
 * `npx wrangler dev` in `root` with `vars` as its variables; `onLine` sees every
 * complete line of its output (ANSI colours stripped), the Worker's log lines among them.
 */
export async function startWrangler(
  root: string,
  vars: Readonly<Record<string, string>>,
  onLine?: (line: string) => void,
  { script, persistTo }: WranglerOptions = {},
): Promise<WranglerDev> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const args = [
    'wrangler',
    'dev',
    ...(script ? [script] : []),
    ...(persistTo ? ['--persist-to', persistTo] : []),
    '--port',
    String(port),
    '--ip',
    '127.0.0.1',
    ...Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
  ]
  const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' }
  log(
    `starting npx wrangler dev --port ${port} --ip 127.0.0.1 with ${Object.keys(vars).join(', ') || 'no variables'} ...`,
  )
  // Its own process group: wrangler starts workerd, which must stop with it.
  const child = spawn('npx', args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  // If this process dies first (a crash, Ctrl-C), wrangler's group, outside the terminal's, must die with it.
  const killGroup = (): void => signalGroup(child, 'SIGKILL')
  const onSignal = (signal: NodeJS.Signals): void => {
    killGroup()
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  process.once('exit', killGroup)
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  // wrangler's output is read line by line, each line decoded on its own from the bytes and clipped: a workerd
  // failing in a loop prints megabytes of stack traces, and a line sliced from one growing string would keep that
  // whole string alive for as long as the line is kept (among the problems): gigabytes.
  let pending: Buffer[] = []
  let pendingBytes = 0
  let ready = false
  let version = 'unknown'
  /** The last lines, for the message of a wrangler that failed to start. */
  const recent: string[] = []
  const problems: Logged[] = []
  let problemsLeftOut = 0
  let phase = { name: 'start-up', started: performance.now() }
  const onReady = new Set<() => void>()
  const take = (raw: string): void => {
    const line = stripAnsi(raw).trim()
    onLine?.(line)
    recent.push(line)
    if (recent.length > RECENT_LINES) recent.shift()
    version = /wrangler\s+(\d+\.\d+\.\d+)/.exec(line)?.[1] ?? version
    if (!ready && /Ready on/.test(line)) {
      ready = true
      for (const resolve of onReady) resolve()
    }
    if (!isProblem(line)) return
    if (problems.length < MAX_PROBLEM_LINES) {
      problems.push({ line, phase: phase.name, at: (performance.now() - phase.started) / 1000 })
    } else problemsLeftOut++
  }
  const onData = (chunk: Buffer): void => {
    let start = 0
    for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, start)) {
      pending.push(chunk.subarray(start, Math.min(end, start + MAX_LINE_BYTES - pendingBytes)))
      take(Buffer.concat(pending).toString('utf8'))
      pending = []
      pendingBytes = 0
      start = end + 1
    }
    if (start < chunk.length && pendingBytes < MAX_LINE_BYTES) {
      const rest = Buffer.from(chunk.subarray(start, start + MAX_LINE_BYTES - pendingBytes))
      pending.push(rest)
      pendingBytes += rest.length
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const stop = async (): Promise<void> => {
    process.off('exit', killGroup)
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    if (child.exitCode !== null || child.signalCode !== null) return
    signalGroup(child, 'SIGTERM')
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
    // workerd may outlive wrangler's own exit: make sure the whole group is gone.
    signalGroup(child, 'SIGKILL')
  }

  try {
    await new Promise<void>((resolve, reject) => {
      const said = (): string => recent.join('\n')
      const timer = setTimeout(
        () => reject(new Error(`wrangler dev did not say "Ready on" in ${READY_TIMEOUT_MS / 1000} s:\n${said()}`)),
        READY_TIMEOUT_MS,
      )
      const check = (): void => {
        clearTimeout(timer)
        onReady.delete(check)
        resolve()
      }
      if (ready) check()
      else onReady.add(check)
      child.once('exit', (code, signal) => {
        clearTimeout(timer)
        reject(new Error(`wrangler dev exited (${signal ?? `status ${code}`}) before it was ready:\n${said()}`))
      })
    })
  } catch (e) {
    await stop()
    throw e
  }
  const left = (): Logged[] =>
    problemsLeftOut === 0
      ? []
      : [
          {
            line: `(${problemsLeftOut} more such lines left out)`,
            phase: phase.name,
            at: (performance.now() - phase.started) / 1000,
          },
        ]
  return {
    base,
    version,
    phase: (name) => (phase = { name, started: performance.now() }),
    problemLines: () => [...problems, ...left()],
    workerdRss: () => (child.pid === undefined ? 0 : groupRss(child.pid, 'workerd')),
    stop,
  }
}

/** The VmRSS, in bytes, of the processes named `name` in process group `group` (Linux's /proc). */
function groupRss(group: number, name: string): number {
  return rssOf(name, (_, pgrp) => pgrp === group)
}

/** The VmRSS, in bytes, of this process's children named `name` (Miniflare's workerd). */
export function childrenRss(name: string): number {
  return rssOf(name, (ppid) => ppid === process.pid)
}

/**
 * The CPU time, in ms, that this process's children named `name` (Miniflare's
 * workerd) have used: the sum of their threads' time on a CPU, in ns, from
 * /proc's schedstat, where /proc's stat counts in the kernel's 10 ms ticks.
 */
export function childrenCpuMs(name: string): number {
  let ns = 0
  for (const pid of processesOf(name, (ppid) => ppid === process.pid)) {
    try {
      for (const task of readdirSync(`/proc/${pid}/task`))
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // The process, or one of its threads, ended while we looked.
    }
  }
  return ns / 1e6
}

/** The pids of the processes named `name` whose parent and group `belongs` takes. */
function processesOf(name: string, belongs: (ppid: number, pgrp: number) => boolean): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      // `pid (comm) state ppid pgrp ...`: comm may hold spaces, so fields are counted after its `)`.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const [, ppid, pgrp] = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number)
      return comm === name && belongs(ppid as number, pgrp as number)
    } catch {
      return false
    }
  })
}

/** The VmRSS, in bytes, of the processes named `name` whose parent and group `belongs` takes. */
function rssOf(name: string, belongs: (ppid: number, pgrp: number) => boolean): number {
  let bytes = 0
  for (const pid of processesOf(name, belongs)) {
    try {
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
      bytes += Number(rss?.[1] ?? 0) * 1024
    } catch {
      // The process ended while we looked.
    }
  }
  return bytes
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // The group is gone already.
  }
}

function stripAnsi(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '')
}

/** wrangler's complaints, alike ones together, each with when it reached the bench: "12 × LINE (run 2 of ..., at 0.6 (5) s)". */
export function describeLogged(logged: readonly Logged[], who = 'wrangler dev'): string {
  const byLine = new Map<string, Logged[]>()
  for (const entry of logged) byLine.set(entry.line, [...(byLine.get(entry.line) ?? []), entry])
  const described = [...byLine].slice(0, 20).map(([line, entries]) => {
    const byPhase = new Map<string, number[]>()
    for (const e of entries) byPhase.set(e.phase, [...(byPhase.get(e.phase) ?? []), e.at])
    const when = [...byPhase].map(([phase, times]) => `${phase}, at ${spells(times)} s`).join('; ')
    return `${entries.length} × ${line}\n    (${when})`
  })
  const heading =
    `${who} logged errors or warnings (with when each line reached the bench, in s from the start of the ` +
    "bench's phase then; a line can reach it late):"
  return `${heading}\n${described.join('\n')}`
}

/** Times (s) as spells at least a second apart: "2.1–2.6 (12), 7.3 (1)", with how many fell in each. */
export function spells(times: readonly number[]): string {
  const sorted = [...times].sort((a, b) => a - b)
  const groups: number[][] = []
  for (const t of sorted) {
    const last = groups[groups.length - 1]
    if (last && t - (last[last.length - 1] as number) < 1) last.push(t)
    else groups.push([t])
  }
  return groups
    .map((g) => {
      const [from, to] = [g[0] as number, g[g.length - 1] as number]
      const when = to - from < 0.05 ? from.toFixed(1) : `${from.toFixed(1)}–${to.toFixed(1)}`
      return `${when} (${g.length})`
    })
    .join(', ')
}

/**
 * Whether a line of wrangler's output reports a problem. The Worker's own
 * JSON lines say so by their level (one request's line can carry a warning
 * among its events, such as the notice that API_TOKEN is unset, and still be
 * a success); any other line, by its words.
 */
function isProblem(line: string): boolean {
  const json = line.indexOf('{"level":')
  if (json !== -1) {
    try {
      const { level } = JSON.parse(line.slice(json)) as { level?: string }
      return level === 'warn' || level === 'error'
    } catch {
      // Not one of the Worker's lines after all: judged by its words below.
    }
  }
  return /error|warn|exception|uncaught/i.test(line) && !/npm warn/i.test(line)
}
