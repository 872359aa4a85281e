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
