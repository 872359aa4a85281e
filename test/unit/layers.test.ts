// Imports point down: nothing under lib/ imports lib/http, whose job is to serve lib/ over HTTP.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const lib = join(root, 'lib')

/** Every relative import of a file, as a path from the repository's root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/\bfrom\s+'(\.{1,2}\/[^']*)'/g)].map((m) =>
    relative(root, resolve(dirname(file), m[1] as string)),
  )
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
}

describe('layers', () => {
  it('keep lib/http out of every import under lib/ but its own', () => {
    const upward = sources(lib)
      .filter((file) => !relative(lib, file).startsWith('http/'))
      .flatMap((file) => importsOf(file).map((target) => `${relative(root, file)} -> ${target}`))
      .filter((edge) => /-> lib\/http(\/|$)/.test(edge))
    expect(upward).toEqual([])
  })

  it('keep the MCP server (lib/mcp) and the MCP tool client (lib/tools/mcp-client.ts) apart: they share lib/mcp/protocol.ts', () => {
    const server = sources(join(lib, 'mcp')).flatMap((file) =>
      importsOf(file).filter((t) => t === 'lib/tools/mcp-client'),
    )
    expect(server).toEqual([])
    expect(importsOf(join(lib, 'tools/mcp-client.ts'))).toContain('lib/mcp/protocol')
  })

  it("keep dev/ (the dev commands' servers) out of the Worker and the CLI, and the tests out of dev/", () => {
    const edges = (dir: string, target: RegExp) =>
      sources(join(root, dir)).flatMap((file) =>
        importsOf(file)
          .filter((t) => target.test(t))
          .map((t) => `${relative(root, file)} -> ${t}`),
      )
    expect([...edges('functions', /^dev\//), ...edges('lib', /^dev\//), ...edges('cli', /^dev\//)]).toEqual([])
    expect(edges('dev', /^test\//)).toEqual([])
    // The tests' bridge is the dev bridge with an admin API over it, not a copy of it.
    expect(importsOf(join(root, 'test/support/upstash-bridge.ts'))).toContain('dev/upstash-bridge')
  })

  it('see an import of lib/http where there is one', () => {
    expect(importsOf(join(root, 'functions/index.ts'))).toContain('lib/http')
  })
})
