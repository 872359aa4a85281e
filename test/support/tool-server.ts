// A real HTTP server for REST tools to call. What it does is read from the
// request itself, so a tool definition's URL fully determines the behaviour and
// tests need no setup calls:
//
//   /delay/<ms>/...    waits ms before answering
//   /status/<code>/... answers that HTTP status (a JSON error body unless /text or /badjson says otherwise)
//   /hang/...          never answers, until the client gives up or the server stops
//   /text/...          answers text/plain "plain answer"
//   /badjson/...       answers application/json with a body that does not parse
//   /redirect/<code>/... answers that 3xx status with `Location:` the `to` query parameter
//   /big/<bytes>/...   answers that many bytes of text/plain (`x`s), with a Content-Length, written
//                      lazily (a chunk whenever the client has taken the last one) and stopped when
//                      the client goes away; with /chunked, without a Content-Length
//   /secret/...        an error body (with /status) or a text body holding SECRET
//   /bom/...           the answer (text or JSON) begins with a byte order mark, U+FEFF
//   /deep/<levels>/... answers JSON arrays nested that many levels deep: `[[...[1]...]]`
//
// Prefixes combine in any order (`/delay/200/status/500/tools/x`). Anything else
// (e.g. `/tools/...`) answers 200 with an echo of the request (see `Echo`).
//
// Calls are counted per group, the `?group=NAME` query parameter (default
// `default`): `GET /__stats?group=NAME` answers `ToolServerStats`,
// `GET /__idle?group=NAME` answers them once no request of the group is
// active (an event to wait on, for a client that should have gone away),
// `GET /__busy?group=NAME` once one is (a client now waiting on the server),
// `POST /__reset?group=NAME` starts the group afresh.
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { closeNow, listenOnLoopback } from './ports'
import { messageOf, send } from './serving'

export interface ToolServer {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  url: string
  stop(): Promise<void>
}

export interface ToolServerStats {
  /** Requests of the group being handled right now (delayed or hanging ones included). */
  active: number
  /** The most that were ever active at once since the last reset. */
  maxActive: number
  /** Requests received since the last reset. */
  calls: number
  /** One key per request, in arrival order: see `requestKey`. */
  requests: string[]
  /** Requests whose client went away before their answer was complete (a /big answer cancelled, a /hang given up). */
  cutShort: number
  /** Bytes of /big answers handed to the socket. */
  bigBytesSent: number
}

/** What a plain (uncontrolled) request is answered with. */
export interface Echo {
  method: string
  /** The path as sent (still percent-encoded), control prefixes included. */
  path: string
  /** The query as sent (`group` included); a repeated name gives an array. */
  query: Record<string, string | string[]>
  /** The parsed JSON body, or null when there was none. */
  body: unknown
  headers: { 'content-type': string | null }
}

export const DEFAULT_GROUP = 'default'
export const PLAIN_ANSWER = 'plain answer'
export const BAD_JSON = '{"broken": '
/** What a /secret body holds: no warning or log line may quote it. */
export const SECRET = 'db-password=hunter2-s3cr3t'
const BOM = '\ufeff'
/** A /big answer is written in chunks of this many bytes. */
const BIG_CHUNK = 64 * 1024

interface Control {
  delay: number
  status?: number
  hang: boolean
  text: boolean
  badjson: boolean
  redirect?: number
  big?: number
  chunked: boolean
  secret: boolean
  bom: boolean
  deep?: number
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export async function startToolServer(): Promise<ToolServer> {
  const groups = new Map<string, ToolServerStats>()
  const statsOf = (group: string): ToolServerStats => {
    let stats = groups.get(group)
    if (!stats) {
      stats = { active: 0, maxActive: 0, calls: 0, requests: [], cutShort: 0, bigBytesSent: 0 }
      groups.set(group, stats)
    }
    return stats
  }
  /** Who waits for a group to have no request active (`/__idle`), or one (`/__busy`). */
  const waiters: { group: string; busy: boolean; resolve: () => void }[] = []
  const wake = (): void => {
    for (const waiter of waiters.filter((w) => statsOf(w.group).active > 0 === w.busy)) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }
  /** Responses told to hang, destroyed on stop. */
  const hanging = new Set<ServerResponse>()
  let stopping = false

  const admin = async (req: IncomingMessage, url: URL): Promise<[number, unknown]> => {
    const group = url.searchParams.get('group') ?? DEFAULT_GROUP
    const snapshot = (): ToolServerStats => {
      const stats = statsOf(group)
      return { ...stats, requests: [...stats.requests] }
    }
    if (url.pathname === '/__stats' && req.method === 'GET') return [200, snapshot()]
    if ((url.pathname === '/__idle' || url.pathname === '/__busy') && req.method === 'GET') {
      await new Promise<void>((resolve) => {
        waiters.push({ group, busy: url.pathname === '/__busy', resolve })
        wake()
      })
      return [200, snapshot()]
    }
    if (url.pathname === '/__reset' && req.method === 'POST') {
      // A new record: requests still in flight finish against the old one.
      groups.delete(group)
      return [200, { ok: true }]
    }
    return [404, { error: `no admin route ${req.method} ${url.pathname}` }]
  }

  const tool = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    // Counted on arrival, before anything can fail.
    const stats = statsOf(url.searchParams.get('group') ?? DEFAULT_GROUP)
    stats.calls++
    stats.active++
    stats.maxActive = Math.max(stats.maxActive, stats.active)
    wake()
    let done = false
    let complete = false
    const finish = () => {
      if (done) return
      done = true
      stats.active--
      hanging.delete(res)
      wake()
    }
    // Also when the client goes away first (an abort, or the server stopping).
    res.once('close', () => {
      if (!complete && !res.writableFinished) stats.cutShort++
      finish()
    })

    let body: unknown
    let control: Control
    try {
      body = await readBody(req)
      control = parseControl(url.pathname)
    } catch (error) {
      stats.requests.push(requestKey(req.method ?? '', url, undefined))
      finish()
      send(res, error instanceof HttpError ? error.status : 500, { error: messageOf(error) })
      return
    }
    stats.requests.push(requestKey(req.method ?? '', url, body))

    if (control.delay > 0) await sleep(control.delay, res)
    if (done) return // the client left while we waited
    if (control.hang) {
      hanging.add(res)
      if (stopping) res.destroy()
      return
    }

    const status = control.status ?? 200
    if (control.big !== undefined) {
      await sendBig(res, control, stats)
      complete = res.writableFinished
      finish()
      return
    }
    complete = true
    finish()
    const bom = control.bom ? BOM : ''
    if (control.redirect !== undefined) {
      const to = url.searchParams.get('to') ?? '/'
      res.writeHead(control.redirect, { Location: to, 'Content-Type': 'text/plain' })
      res.end(`redirected to ${to}`)
    } else if (control.secret) {
      send(res, status, { error: `${SECRET}\nat connect (db.js:12)`, status })
    } else if (status === 204 || status === 304) {
      res.writeHead(status)
      res.end()
    } else if (control.text) {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' })
      res.end(bom + PLAIN_ANSWER)
    } else if (control.deep !== undefined) {
      res.writeHead(status, { 'Content-Type': 'application/json' })
      res.end(`${'['.repeat(control.deep)}1${']'.repeat(control.deep)}`)
    } else if (control.badjson) {
      res.writeHead(status, { 'Content-Type': 'application/json' })
      res.end(BAD_JSON)
    } else if (control.status !== undefined) {
      send(res, status, { error: `status ${status} as requested`, status, method: req.method, path: url.pathname })
    } else {
      const echo: Echo = {
        method: req.method ?? '',
        path: url.pathname,
        query: queryObject(url.searchParams),
        body: body === undefined ? null : body,
        headers: { 'content-type': req.headers['content-type'] ?? null },
      }
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(bom + JSON.stringify(echo))
    }
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://tool-server')
    const handled = url.pathname.startsWith('/__')
      ? admin(req, url).then(([status, payload]) => send(res, status, payload))
      : tool(req, res, url)
    handled.catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: messageOf(error) })
      else res.destroy()
    })
  })
  const port = await listenOnLoopback(server)

  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      stopping = true
      await closeNow(server, hanging)
    },
  }
}

/** Reads the control prefixes off the front of the path. */
function parseControl(pathname: string): Control {
  const control: Control = {
    delay: 0,
    hang: false,
    text: false,
    badjson: false,
    chunked: false,
    secret: false,
    bom: false,
  }
  const segments = pathname.split('/').filter(Boolean)
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]
    if (['delay', 'status', 'redirect', 'big', 'deep'].includes(segment as string)) {
      const value = Number(segments[i + 1])
      if (!Number.isInteger(value)) throw new HttpError(400, `/${segment}/ needs an integer, got ${segments[i + 1]}`)
      if (segment === 'delay') {
        if (value < 0) throw new HttpError(400, `negative delay ${value}`)
        control.delay += value
      } else if (segment === 'big' || segment === 'deep') {
        if (value < 0) throw new HttpError(400, `negative ${segment} ${value}`)
        control[segment] = value
      } else if (segment === 'redirect') {
        if (value < 300 || value > 399) throw new HttpError(400, `redirect status ${value} is out of range 300-399`)
        control.redirect = value
      } else {
        if (value < 200 || value > 599) throw new HttpError(400, `status ${value} is out of range 200-599`)
        control.status = value
      }
      i++
    } else if (segment === 'hang') control.hang = true
    else if (segment === 'text') control.text = true
    else if (segment === 'badjson') control.badjson = true
    else if (segment === 'chunked') control.chunked = true
    else if (segment === 'secret') control.secret = true
    else if (segment === 'bom') control.bom = true
    else break
  }
  return control
}

/** `METHOD path?sorted query without group` plus ` <JSON body with sorted keys>` when there is a body. */
export function requestKey(method: string, url: URL, body: unknown): string {
  const params = [...url.searchParams].filter(([name]) => name !== 'group')
  params.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
  const query = new URLSearchParams(params).toString()
  let key = `${method} ${url.pathname}${query ? `?${query}` : ''}`
  if (body !== undefined) key += ` ${JSON.stringify(sortKeys(body))}`
  return key
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]))
  }
  return value
}

function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {}
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name)
    query[name] = values.length === 1 ? (values[0] as string) : values
  }
  return query
}

/** The parsed JSON body; undefined when there is none. */
async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(400, `request body is not JSON: ${messageOf(error)}`)
  }
}

/**
 * A /big answer: `x`s, one chunk at a time, each written once the socket has
 * taken the last, so what is sent is what the client reads; it stops as soon
 * as the client goes away.
 */
async function sendBig(res: ServerResponse, control: Control, stats: ToolServerStats): Promise<void> {
  const size = control.big ?? 0
  const headers: Record<string, string | number> = { 'Content-Type': 'text/plain; charset=utf-8' }
  if (!control.chunked) headers['Content-Length'] = size
  res.writeHead(control.status ?? 200, headers)
  const chunk = Buffer.alloc(BIG_CHUNK, 'x')
  for (let sent = 0; sent < size;) {
    const piece = Math.min(BIG_CHUNK, size - sent)
    if (res.destroyed) return
    const drained = res.write(piece === BIG_CHUNK ? chunk : chunk.subarray(0, piece))
    sent += piece
    stats.bigBytesSent += piece
    if (!drained && !(await drainOrClose(res))) return
  }
  await new Promise<void>((resolve) => res.end(resolve))
}

/** True when the socket wants more, false when the response closed first. */
function drainOrClose(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const drain = () => (res.off('close', close), resolve(true))
    const close = () => (res.off('drain', drain), resolve(false))
    res.once('drain', drain)
    res.once('close', close)
  })
}

/** Waits ms, or less if the response closes first (client abort, server stop). */
function sleep(ms: number, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      res.off('close', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    res.once('close', done)
  })
}
