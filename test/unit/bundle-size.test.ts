import { describe, expect, it } from 'vitest'
import { composition, ownerOf } from '../../scripts/bundle-size.mjs'

describe("the bundle's composition", () => {
  it('names each input by its package, a nested copy with its parent, and our files by folder', () => {
    expect(ownerOf('node_modules/zod/v4/core/schemas.js')).toBe('zod')
    expect(ownerOf('node_modules/@hono/zod-openapi/dist/index.mjs')).toBe('@hono/zod-openapi')
    expect(ownerOf('node_modules/@hono/zod-openapi/node_modules/zod/v4/index.js')).toBe('@hono/zod-openapi > zod')
    expect(ownerOf('lib/store/upstash.ts')).toBe('lib/store (ours)')
    expect(ownerOf('lib/log.ts')).toBe('lib/*.ts (ours)')
    expect(ownerOf('functions/index.ts')).toBe('functions (ours)')
  })

  it("sums the bytes each input puts in the output per package, largest first, with each one's share", () => {
    const metafile = {
      outputs: {
        'index.js': {
          inputs: {
            'node_modules/zod/a.js': { bytesInOutput: 300 },
            'node_modules/zod/b.js': { bytesInOutput: 300 },
            'lib/store/upstash.ts': { bytesInOutput: 100 },
            'node_modules/hono/index.js': { bytesInOutput: 300 },
          },
        },
        'index.js.map': { inputs: {} },
      },
    }
    expect(composition(metafile)).toEqual([
      { owner: 'zod', bytes: 600, share: 0.6 },
      { owner: 'hono', bytes: 300, share: 0.3 },
      { owner: 'lib/store (ours)', bytes: 100, share: 0.1 },
    ])
  })
})
