// A render reads the tools of the function names its templates call (issue
// 27, row 7): the keys a name can stand for, and the names a prompt calls,
// found before its tools are known.
import { describe, expect, it } from 'vitest'
import { funcToKeys, keyToFunc } from '../../lib/store/keys'
import { compile, functionNames } from '../../lib/render/compile'
import type { Prompt } from '../../lib/catalog'
import type { PromptRecord } from '../../lib/catalog'

const prompt = (record: PromptRecord): Prompt => ({ id: 't.p', origin: 'direct', key: 'shenma:templates:t:p', record })

describe('funcToKeys', () => {
  it('gives every key keyToFunc names the function by, in sorted order', () => {
    expect(funcToKeys('a_b_c')).toEqual([
      'shenma:tools:a:b:c',
      'shenma:tools:a:b_c',
      'shenma:tools:a_b:c',
      'shenma:tools:a_b_c',
    ])
    expect(funcToKeys('upper')).toEqual(['shenma:tools:upper'])
    expect(funcToKeys('_x_')).toEqual(['shenma:tools::x:', 'shenma:tools::x_', 'shenma:tools:_x:', 'shenma:tools:_x_'])
  })

  it('is the inverse of keyToFunc: 2^k keys for k underscores, each naming the function', () => {
    const keys = funcToKeys('m_a_b_c_d_e')
    expect(keys).toHaveLength(32)
    expect(new Set(keys.map(keyToFunc))).toEqual(new Set(['m_a_b_c_d_e']))
    expect([...keys].sort()).toEqual(keys)
  })
})

describe('functionNames', () => {
  it('names every function any template of the prompt calls, defined anywhere or not, reached or not', () => {
    const p = prompt({
      prompt: '{{define "unused"}}{{mod_unused}}{{end}}{{upper (mod_a .x)}}{{if eq 1 2}}{{template "t" .}}{{end}}',
    })
    expect(functionNames(p)).toEqual(['eq', 'mod_a', 'mod_unused', 'upper'])
  })

  it('names the functions of every message', () => {
    const p = prompt({
      messages: [
        { role: 'system', content: '{{define "d"}}{{mod_d}}{{end}}{{mod_s}}' },
        { role: 'user', content: '{{template "d"}}{{mod_u 1}}' },
      ],
    })
    expect(functionNames(p)).toEqual(['mod_d', 'mod_s', 'mod_u'])
  })

  it('names break and continue, which are calls where a tool has their name', () => {
    const p = prompt({ prompt: '{{range .xs}}{{if .}}{{continue}}{{end}}{{break}}{{end}}' })
    expect(functionNames(p)).toEqual(['break', 'continue'])
    // Without such tools they are keywords, as they were.
    expect(compile(p, ['dict']).analysis.functions).toEqual([])
    expect(compile(p, ['dict', 'break']).analysis.functions).toEqual(['break'])
  })

  it("fails a text that cannot parse whatever functions exist with the parser's error", () => {
    expect(() => functionNames(prompt({ prompt: '{{if}}' }))).toThrow(/missing value for if/)
  })

  it('is the parse a render uses when the prompt calls no name but the tools found, builtins and helpers', () => {
    const p = prompt({ prompt: '{{upper (mod_a .x)}}' })
    functionNames(p)
    // Two sets of tools, one parse: both are the parse that found the names.
    expect(compile(p, ['dict', 'mod_a']).templates[0]).toBe(compile(p, ['mod_a', 'dict', 'upper']).templates[0])
  })

  it('leaves the check of which names are defined to the parse with the tools found', () => {
    const p = prompt({ prompt: '{{mod_nope 1}}' })
    expect(functionNames(p)).toEqual(['mod_nope'])
    expect(() => compile(p, ['dict'])).toThrow(/function "mod_nope" not defined/)
  })
})
