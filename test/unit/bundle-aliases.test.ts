// The Worker bundle's zod (lib/bundle/zod.ts, wrangler.toml's [alias]) has only
// the members of `z` the Worker names: a member used but missing would be
// undefined in the deployed Worker only, since types come from zod itself.
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from '../../lib/bundle/zod'

const root = resolve(import.meta.dirname, '../..')

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
}

describe("the bundle's zod", () => {
  it('has every member of z the Worker names', () => {
    const named = new Set(
      [...sources('functions'), ...sources('lib')].flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/\bz\.(\w+)/g)].map((m) => m[1] as string),
      ),
    )
    expect(named.size).toBeGreaterThan(5)
    expect([...named].filter((member) => !(member in z)).sort()).toEqual([])
  })
})
