// A webhook receiver for the change events (docs/webhooks.md), one inbox per
// test under `/inbox/<name>`. Each delivery is checked with the docs'
// verification snippet itself, read from docs/webhooks.md and imported as
// written, and kept with its verdict.
//
//   POST /inbox/<name>                    a delivery: answered with the inbox's next planned status (else 200)
//   PUT  /__inbox/<name>/plan             body `[500, 503]`: the statuses the next deliveries get, in order
//   GET  /__inbox/<name>/deliveries?count=N  the deliveries, once at least N arrived (an event to wait on;
//                                         given up on after 30 s with what there is)
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { closeNow, listenOnLoopback } from './ports'
import { send } from './serving'

/** The WEBHOOK_SECRET of the workers project: vitest.config.ts binds the same for the queue consumer. */
export const WEBHOOK_TEST_SECRET = 'webhook-test-secret'

const GIVE_UP_MS = 30_000

export interface Delivery {
  headers: Record<string, string>
  body: string
  /** What the docs' verifyChangeEvent said of it, with WEBHOOK_TEST_SECRET. */
  verified: boolean
}

type Verify = (secret: string, header: string | undefined, body: string) => Promise<boolean>

/** The first ```js block of docs/webhooks.md, imported as a module: the snippet exactly as documented. */
export async function documentedVerifier(): Promise<Verify> {
  const doc = readFileSync(join(import.meta.dirname, '../../docs/webhooks.md'), 'utf8')
  const code = /```js\n([\s\S]*?)```/.exec(doc)?.[1]
  if (code === undefined) throw new Error('docs/webhooks.md has no ```js block')
  const module = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as { verifyChangeEvent?: Verify }
  if (typeof module.verifyChangeEvent !== 'function') throw new Error('the snippet exports no verifyChangeEvent')
  return module.verifyChangeEvent
}

interface Inbox {
  deliveries: Delivery[]
  plan: number[]
  waiters: (() => void)[]
}

export async function startWebhookReceiver(): Promise<{ url: string; stop(): Promise<void> }> {
  const verify = await documentedVerifier()
  const inboxes = new Map<string, Inbox>()
  const inbox = (name: string) => {
    let found = inboxes.get(name)
    if (!found) inboxes.set(name, (found = { deliveries: [], plan: [], waiters: [] }))
    return found
  }
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver')
    const [, area, name, what] = url.pathname.split('/')
    if (name === undefined) return send(res, 404, { error: 'no inbox' })
    const box = inbox(name)
    if (area === 'inbox' && req.method === 'POST') {
      const body = await textOf(req)
      const header = req.headers['x-signature']
      const verified = await verify(WEBHOOK_TEST_SECRET, typeof header === 'string' ? header : undefined, body)
      const headers = Object.fromEntries(
        Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])),
      )
      box.deliveries.push({ headers, body, verified })
      for (const wake of box.waiters.splice(0)) wake()
      return send(res, box.plan.shift() ?? 200, { received: true })
    }
    if (area === '__inbox' && what === 'plan' && req.method === 'PUT') {
      box.plan = JSON.parse(await textOf(req)) as number[]
      return send(res, 200, { plan: box.plan })
    }
    if (area === '__inbox' && what === 'deliveries') {
      const count = Number(url.searchParams.get('count') ?? '0')
      const deadline = Date.now() + GIVE_UP_MS
      while (box.deliveries.length < count && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, deadline - Date.now())
          box.waiters.push(() => {
            clearTimeout(timer)
            resolve()
          })
        })
      }
      return send(res, 200, box.deliveries)
    }
    send(res, 404, { error: `no route ${req.method} ${url.pathname}` })
  })
  const port = await listenOnLoopback(server)
  return { url: `http://127.0.0.1:${port}`, stop: () => closeNow(server) }
}

async function textOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
