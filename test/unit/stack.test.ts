// The stack as designed (issue 28): the Worker runs the packages the design
// names, through their own entry points, and nothing stands in for them.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { unstable_readConfig } from 'wrangler'
import { REQUIRED_PACKAGES, missingPackages } from '../../scripts/bundle-size.mjs'

const root = resolve(import.meta.dirname, '../..')

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|js|mjs)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
}

describe('the stack', () => {
  it('lists the packages the Worker runs as dependencies', () => {
    const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>
    }
    expect(REQUIRED_PACKAGES.filter((name) => !(name in dependencies))).toEqual([])
  })

  it('aliases no package to a file of the project, in wrangler.toml or the vitest config', () => {
    const { alias } = unstable_readConfig({ config: join(root, 'wrangler.toml') })
    expect(alias ?? {}).toEqual({})
    expect(readFileSync(join(root, 'vitest.config.ts'), 'utf8')).not.toMatch(/\balias\b/)
    expect(existsSync(join(root, 'lib/bundle'))).toBe(false)
    expect(existsSync(join(root, 'lib/tools/grpc-wire.ts'))).toBe(false)
  })

  it("leaves Upstash's protocol to @upstash/redis: no file of lib/ names its /pipeline or /multi-exec", () => {
    const posting = sources('lib').filter((file) => /(['"`])\/(pipeline|multi-exec)\1/.test(readFileSync(file, 'utf8')))
    expect(posting).toEqual([])
  })

  it('finds a package missing from a bundle by its metafile', () => {
    const metafile = {
      outputs: {
        'index.js': {
          inputs: {
            'node_modules/@upstash/redis/chunk.mjs': { bytesInOutput: 1 },
            'node_modules/openai/client.mjs': { bytesInOutput: 1 },
            'node_modules/ajv/dist/runtime/ucs2length.js': { bytesInOutput: 1 },
          },
        },
      },
    }
    expect(missingPackages(metafile)).toEqual(['@connectrpc/connect-web'])
  })
})
