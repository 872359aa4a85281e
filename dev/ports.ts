// Loopback ports for the local servers the dev commands start (and the tests, through test/support/ports.ts).
import type { Server as HttpServer, ServerResponse } from 'node:http'
import { createServer } from 'node:net'
import type { AddressInfo, Server } from 'node:net'

/**
 * Where freePort looks: below the ports the kernel hands out on its own (Linux's ephemeral range starts at 32768,
 * macOS's and Windows' at 49152). A port found free there stays free until the server meant for it binds it, and
 * after: wrangler dev restarts workerd on its first rebuild, leaving the inspector port unbound for a moment, and
 * in the ephemeral range any outgoing connection (or another process's `listen(0)`) may take it then.
 */
const SEARCHED = { first: 20000, last: 32767 }

/** Whether a loopback listener can take `port` right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** A loopback port nothing listens on right now, for a server another process starts (it may still race a peer). */
export async function freePort(): Promise<number> {
  const span = SEARCHED.last - SEARCHED.first + 1
  for (let attempt = 0; attempt < 64; attempt++) {
    const port = SEARCHED.first + Math.floor(Math.random() * span)
    if (await canListen(port)) return port
  }
  throw new Error(`no free loopback port between ${SEARCHED.first} and ${SEARCHED.last} after 64 tries`)
}

/** Starts `server` on a free loopback port and returns the port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  return (server.address() as AddressInfo).port
}

/** Stops an HTTP server at once: answers still pending are cut, keep-alive and streaming sockets closed. */
export async function closeNow(server: HttpServer, pending = new Set<ServerResponse>()): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  for (const res of pending) res.destroy()
  pending.clear()
  server.closeAllConnections()
  await closed
}
