// functions/index.ts shows every route as method, path, module and auth: its table is the app's routes, each
// declared in its module with its method and full path written out (searching for them finds the declaration).
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import app from '../../functions/index'
import { adminAuth } from '../../lib/http'
import { routeOf } from '../../lib/http/route'

const functions = resolve(import.meta.dirname, '../../functions')

interface Row {
  method: string
  path: string
  module: string
  auth: string
}

/** The table of functions/index.ts's comment. */
function table(): Row[] {
  const text = readFileSync(resolve(functions, 'index.ts'), 'utf8')
  return [...text.matchAll(/^ \* \| (GET|POST|PUT|DELETE) +\| (\S+) +\| (\S+) +\| (\S+) +\|$/gm)].map((m) => ({
    method: m[1] as string,
    path: m[2] as string,
    module: m[3] as string,
    auth: m[4] as string,
  }))
}

/** The app's routes (each registered with its declaration, after its checks), as the table writes them, their auth read from their declarations. */
function served(): Omit<Row, 'module'>[] {
  return app.routes
    .filter((r) => routeOf(r.handler) !== undefined)
    .map((r) => {
      const declaration = routeOf(r.handler)?.declaration()
      const admin = declaration?.middleware?.includes(adminAuth) ?? false
      const auth = declaration?.security?.length === 0 ? 'open' : admin ? 'ADMIN_TOKEN' : 'API_TOKEN'
      return { method: r.method, path: r.path.replace(/:(\w+)/g, '{$1}'), auth }
    })
}

describe("functions/index.ts's table of routes", () => {
  it('lists every route the app serves, in order, with its auth', () => {
    const rows = table()
    expect(rows.length).toBeGreaterThanOrEqual(30)
    expect(rows.map(({ module: _, ...row }) => row)).toEqual(served())
  })

  it('names the module that declares each route, its method and full path written out in the declaration', () => {
    const missing = table().filter(({ method, path, module }) => {
      const source = readFileSync(resolve(functions, module), 'utf8')
      return !source.includes(`defineRoute('${method.toLowerCase()}', '${path}'`)
    })
    expect(missing).toEqual([])
  })

  it('mounts each group once', () => {
    const text = readFileSync(resolve(functions, 'index.ts'), 'utf8')
    const groups = [...text.matchAll(/^app\.route\('([^']*)', (\w+)\)$/gm)].map((m) => m[2])
    expect(groups.length).toBeGreaterThanOrEqual(10)
    expect(new Set(groups).size).toBe(groups.length)
  })
})
