// ExecuteOptions.onNoValue: where an action printed Go's `<no value>`; the output stays Go's.
import { describe, expect, it } from 'vitest'
import { parse } from '../../../lib/template'
import type { NoValueSite } from '../../../lib/template'

async function sites(text: string, data: unknown, enough = Infinity): Promise<{ out: string; sites: NoValueSite[] }> {
  const found: NoValueSite[] = []
  const out = await parse('t', text, { helpers: true }).execute(data, {
    onNoValue: (site) => {
      found.push(site)
      return found.length < enough
    },
  })
  return { out, sites: found }
}

describe('onNoValue', () => {
  it('is told of a missing key, a null, and a missing index, each with its place and the action', async () => {
    const { out, sites: found } = await sites('{{.gone}} {{.nil}}\n  {{index .m "x"}}', { nil: null, m: {} })
    expect(out).toBe('<no value> <no value>\n  <no value>')
    expect(found).toEqual([
      { template: 't', line: 1, column: 2, expression: '{{.gone}}' },
      { template: 't', line: 1, column: 12, expression: '{{.nil}}' },
      { template: 't', line: 2, column: 4, expression: '{{index .m "x"}}' },
    ])
  })

  it('is told once an action however often it prints, and of no print that is not an action', async () => {
    const { out, sites: found } = await sites('{{range 3}}{{$.gone}}{{end}}{{print .gone}}{{printf "%v" .nil}}', {
      nil: null,
    })
    expect(out).toBe('<no value><no value><no value><nil><nil>')
    expect(found.map((s) => s.expression)).toEqual(['{{$.gone}}'])
  })

  it('is told no more once it answers false', async () => {
    const { out, sites: found } = await sites('{{.a}}{{.b}}{{.c}}', {}, 2)
    expect(out).toBe('<no value>'.repeat(3))
    expect(found.map((s) => s.expression)).toEqual(['{{.a}}', '{{.b}}'])
  })

  it('places an action inside a defined template in the text it was parsed from', async () => {
    const { sites: found } = await sites('{{define "d"}}\n{{.x}}{{end}}{{template "d" .}}', {})
    expect(found).toEqual([{ template: 't', line: 2, column: 2, expression: '{{.x}}' }])
  })

  it('hears of a value that arrives later, from a function that returns a Promise', async () => {
    const found: NoValueSite[] = []
    const t = parse('t', 'a{{later}}', { functions: ['later'] })
    const out = await t.execute(
      {},
      { funcs: { later: () => Promise.resolve(null) }, onNoValue: (s) => void found.push(s) },
    )
    expect(out).toBe('a<no value>')
    expect(found).toEqual([{ template: 't', line: 1, column: 3, expression: '{{later}}' }])
  })
})
