// Template.render: synchronous where nothing is pending, as Go's Execute is,
// and the same limits as execute whatever path the template takes (plain text
// is returned as it is, anything near a limit is walked).
import { describe, expect, it } from 'vitest'
import { ExecError, LimitError, parse } from '../../../lib/template'
import type { TemplateFunction } from '../../../lib/template'

const upper: TemplateFunction = (s) => String(s).toUpperCase()
const later: TemplateFunction = (s) => Promise.resolve(String(s))

describe('render', () => {
  it('returns the text itself, not a Promise, when every function is synchronous', () => {
    const t = parse('t', '{{range .xs}}{{upper .}} {{printf "%.2f" 1.5}}|{{end}}{{with .m}}{{.k}}{{end}}')
    expect(t.render({ xs: ['a', 'b'], m: { k: 'v' } }, { funcs: { upper } })).toBe('A 1.50|B 1.50|v')
  })

  it('returns a Promise of what execute renders when a function returns one', async () => {
    const t = parse('t', '{{later .}}-{{upper .}}')
    const out = t.render('x', { funcs: { later, upper } })
    expect(out).toBeInstanceOf(Promise)
    expect(await out).toBe('x-X')
    expect(await t.execute('x', { funcs: { later, upper } })).toBe('x-X')
  })

  it('throws where a synchronous execution fails, and execute rejects with the same error', async () => {
    const t = parse('t', 'a{{.x.y}}')
    const options = { missingKey: 'error' as const }
    let thrown: unknown
    try {
      t.render({}, options)
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(ExecError)
    expect((thrown as ExecError).message).toMatch(/map has no entry for key "x"$/)
    await expect(t.execute({}, options)).rejects.toThrow((thrown as ExecError).message)
  })
})

describe('a template of plain text', () => {
  const text = 'hello{{/* a comment */}} world'

  it('renders as it is', () => {
    expect(parse('t', text).render(null)).toBe('hello world')
    expect(parse('t', '').render(null)).toBe('')
  })

  it('still meets the output limit', () => {
    expect(parse('t', text).render(null, { maxOutput: 11 })).toBe('hello world')
    expect(() => parse('t', text).render(null, { maxOutput: 10 })).toThrow(LimitError)
  })

  it('still meets the step budget: each node is a step (a comment leaves none)', () => {
    expect(parse('t', text).render(null, { maxSteps: 2 })).toBe('hello world')
    expect(() => parse('t', text).render(null, { maxSteps: 1 })).toThrow(
      expect.objectContaining({ name: 'TimeoutError' }),
    )
  })

  it('still stops at an aborted signal', () => {
    const controller = new AbortController()
    controller.abort(new Error('gone'))
    expect(() => parse('t', text).render(null, { signal: controller.signal })).toThrow('gone')
  })

  it('still reads the clock past 256 nodes', () => {
    const long = 'x{{/* */}}'.repeat(300)
    expect(() => parse('t', long).render(null, { deadline: Date.now() - 1 })).toThrow(
      expect.objectContaining({ name: 'TimeoutError' }),
    )
    expect(parse('t', 'x').render(null, { deadline: Date.now() - 1 })).toBe('x')
  })
})
