// Loopback ports for the local servers the dev commands start (and the tests, through test/support/ports.ts).
import type { Server as HttpServer, ServerResponse } from 'node:http'
import { createServer } from 'node:net'
import type { AddressInfo, Server } from 'node:net'

/** A loopback port nothing listens on right now (a server started on it may still race another). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close((error) => (error ? reject(error) : resolve(port)))
    })
  })
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
