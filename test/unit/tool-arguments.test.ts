// Issue 27, rows 1 and 4: the work a tool call does in proportion to its
// arguments is bounded before it starts (a REST request's URL) or counted in
// the calling template's step budget (copying and keying the arguments), and
// done once for a map passed again. No request is made here: the calls are
// refused or fail their validation before any.
import { describe, expect, it } from 'vitest'
import type { Tool } from '../../lib/catalog'
import { parse } from '../../lib/template'
import type { Meter, Value } from '../../lib/template'
import { SeenMaps, paramsChecker } from '../../lib/tools/arguments'
import { MAX_QUERY_PARAMETERS, MAX_URL_LENGTH, restRequest } from '../../lib/tools/rest'
import { ToolSession } from '../../lib/tools/session'

const GET = { url: 'http://tools.test/x?group=a', method: 'GET' } as const

/** `n` parameters named p0, p1...: 40,000 of them is the row's 578 KB body. */
const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, `v${i}`]))

describe('a REST request', () => {
  it('with 40,000 parameters its tool takes is refused before it is built: its URL would pass 8 KiB', () => {
    expect(() => restRequest(GET, many(40_000), undefined, undefined)).toThrow(
      `its URL would be longer than ${MAX_URL_LENGTH} characters`,
    )
  })

  it('sends only the parameters its tool declares, and the URL placeholders', () => {
    const params = { q: 'x', id: '7', ...many(40_000) }
    const get = restRequest({ url: 'http://tools.test/items/{id}?group=a' }, params, undefined, new Set(['q']))
    expect(get.url.href).toBe('http://tools.test/items/7?group=a&q=x')
    const post = restRequest({ url: 'http://tools.test/items/{id}', method: 'POST' }, params, undefined, new Set(['q']))
    expect(post.body).toBe('{"q":"x"}')
  })

  it('refuses more query parameters than the bound, an array item counting as one', () => {
    const ids = Array.from({ length: MAX_QUERY_PARAMETERS + 1 }, () => '')
    expect(() => restRequest(GET, { i: ids }, undefined, undefined)).toThrow(
      `would send more than ${MAX_QUERY_PARAMETERS} query parameters`,
    )
    const url = restRequest(GET, { i: ids.slice(1) }, undefined, undefined).url
    expect(url.searchParams.getAll('i')).toHaveLength(MAX_QUERY_PARAMETERS)
  })

  it('refuses a URL that encoding makes too long, and a placeholder value that is', () => {
    expect(() => restRequest(GET, { q: 'é'.repeat(2000) }, undefined, undefined)).toThrow('longer than 8192')
    const path = { url: 'http://tools.test/items/{id}' }
    expect(() => restRequest(path, { id: 'x'.repeat(MAX_URL_LENGTH) }, undefined, undefined)).toThrow(
      'longer than 8192',
    )
  })

  it("appends to the URL's own query, and leaves it as written when it adds nothing", () => {
    const spec = { url: 'http://tools.test/x?a=b%20c&flag' }
    expect(restRequest(spec, {}, undefined, undefined).url.href).toBe('http://tools.test/x?a=b%20c&flag')
    expect(restRequest(spec, { q: ['1', 2], n: null }, undefined, undefined).url.search).toBe('?a=b+c&flag=&q=1&q=2')
  })
})

/** A REST tool of the given parameters. */
function tool(parameters: unknown): Tool {
  const record = { name: 'count', module: 'strict', type: 'restful', description: 'c', parameters }
  return { id: 'strict_count', key: 'shenma:tools:strict:count', record: { ...record, restful: GET } } as Tool
}

describe("the parameters a REST request sends, by the tool's schema", () => {
  it('are the declared ones in each shape, all of them when the schema takes others', () => {
    const declared = (parameters: unknown) => paramsChecker(tool(parameters)).declared
    expect(declared([{ name: 'q' }])).toEqual(new Set(['q']))
    expect(declared({ q: { type: 'string' } })).toEqual(new Set(['q']))
    expect(declared({ type: 'object', properties: { q: {} }, additionalProperties: false })).toEqual(new Set(['q']))
    expect(declared(undefined)).toEqual(new Set())
    expect(declared({ type: 'object', properties: { q: {} }, additionalProperties: true })).toBeUndefined()
    expect(declared({ type: 'object', properties: {}, additionalProperties: { type: 'string' } })).toBeUndefined()
    expect(declared({ type: 'object', allOf: [{ properties: { q: {} } }] })).toBeUndefined()
  })
})

describe("a call's arguments", () => {
  // A schema that takes other parameters: they are sent, so copied (a closed one drops them first, below).
  const checker = paramsChecker(
    tool({ type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: true }),
  )
  const big = Object.fromEntries(Array.from({ length: 7_000 }, (_, i) => [`key${i}`, `value-${i}`]))

  it('are charged by their size as they are copied, and a map met again is not copied again', () => {
    let charged = 0
    const meter: Meter = { charge: (chars) => (charged += chars) }
    const seen = new SeenMaps()
    const first = checker.given([big], meter, seen)
    const once = charged
    // 7,000 members and 100 KB of keys and strings: well over one step (64) a member.
    expect(once).toBeGreaterThan(7_000 * 64)
    expect(checker.given([big], meter, seen)).toBe(first)
    expect(charged).toBe(once)
    checker.given([{ m: big }], meter, seen)
    expect(charged).toBeGreaterThan(2 * once)
  })
})

describe('the parameters a REST call keeps, before anything copies or checks them', () => {
  const undeclared = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`a${i}`, 'vv']))

  it('are the declared ones when the schema says nothing of others: 40,000 undeclared leave one member', () => {
    const given = paramsChecker(tool({ q: { type: 'string' } })).named({ ...undeclared, q: 'x' })
    expect(given.params).toEqual({ q: 'x' })
    // So two calls that differ only in what is never sent are one call.
    expect(paramsChecker(tool({ q: { type: 'string' } })).named({ q: 'x', junk: 1 }).key).toBe(given.key)
  })

  it("keep the URL's placeholders, declared or not", () => {
    const record = { ...tool({ q: {} }).record, restful: { url: 'http://tools.test/{id}/x', method: 'GET' } }
    const checker = paramsChecker({ ...tool({ q: {} }), record } as Tool)
    expect(checker.named({ id: 7, q: 1, junk: 2 }).params).toEqual({ id: 7, q: 1 })
  })

  it('are kept per tool for a map met again: one map passed to two tools gives each its own', () => {
    const meter: Meter = { charge: () => undefined }
    const seen = new SeenMaps()
    const record = { ...tool({ q: {} }).record, restful: { url: 'http://tools.test/{id}/x', method: 'GET' } }
    const map = { id: '7', q: 'x', junk: 1 }
    expect(paramsChecker(tool({ q: {} })).given([map], meter, seen).params).toEqual({ q: 'x' })
    expect(paramsChecker({ ...tool({ q: {} }), record } as Tool).given([map], meter, seen).params).toEqual({
      id: '7',
      q: 'x',
    })
  })

  it('are all of them where the schema takes or refuses others', () => {
    const open = { type: 'object', properties: { q: {} }, additionalProperties: true }
    const closed = { type: 'object', properties: { q: {} }, additionalProperties: false }
    expect(Object.keys(paramsChecker(tool(open)).named(undeclared).params)).toHaveLength(40_000)
    const refused = paramsChecker(tool(closed))
    expect(() => refused.check(refused.named({ q: 1, junk: 2 }).params)).toThrow(/invalid arguments/)
  })
})

describe('a template calling a tool in a range with a 100 KB map that fails its validation (row 4)', () => {
  const session = () =>
    new ToolSession({
      baseUrl: undefined,
      moduleBaseUrl: () => undefined,
      allowedHosts: undefined,
      timeoutMs: 1000,
      signal: new AbortController().signal,
    })
  const data = { args: { m: Object.fromEntries(Array.from({ length: 7_000 }, (_, i) => [`key${i}`, `v${i}`])) } }
  /** Room for a few copies of the map, not for 10,000. */
  const maxSteps = 1_000_000

  function render(call: string) {
    const tools = session()
    const funcs = {
      // Open, so that the map's members are sent, and copied: a closed schema would drop them before copying.
      strict_count: tools.functionFor(
        tool({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: true }),
      ),
      wrap: (m: Value) => ({ m }),
    }
    const template = parse('p', `{{range 100}}{{range 100}}${call}{{end}}{{end}}.`, { functions: Object.keys(funcs) })
    try {
      return { output: template.render(data, { funcs, maxSteps }), warnings: tools.warnings }
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e), warnings: tools.warnings }
    }
  }

  it('copies the map once: 10,000 calls with the same map fit a budget of a few copies', () => {
    expect(render('{{strict_count $.args.m}}')).toEqual({
      output: '.',
      warnings: [{ code: 'TOOL_FAILED', tool: 'strict_count', message: 'invalid arguments: $.n is required' }],
    })
  })

  it('pays for each copy of a map made anew for each call: the step budget ends the render', () => {
    expect(render('{{strict_count (wrap $.args.m)}}')).toEqual({
      error: `the execution took more than ${maxSteps} steps`,
      warnings: [{ code: 'TOOL_FAILED', tool: 'strict_count', message: 'invalid arguments: $.n is required' }],
    })
  })
})
