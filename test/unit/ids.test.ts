// Id rules: what an id may look like before anything is read for it, and
// which stored keys no id can name.
import { describe, expect, it, vi } from 'vitest'
import { getEnviron, getExtension, getPrompt, getTool, idProblem } from '../../lib/catalog'
import { unnamable } from '../../lib/catalog/ids'
import { ServiceError } from '../../lib/errors'
import { EmbeddedStore } from '../../lib/store'

describe('idProblem', () => {
  it('takes ids up to 256 characters, prompt ids up to 8 dots, environ ids up to 32 segments', () => {
    expect(idProblem('prompt', 'evaluator.quick_review')).toBeUndefined()
    expect(idProblem('prompt', 'a.b.c.d.e.f.g.h.i')).toBeUndefined()
    expect(idProblem('prompt', 'direct')).toBeUndefined()
    expect(idProblem('prompt', 'p'.repeat(256))).toBeUndefined()
    expect(idProblem('environ', Array(32).fill('v').join('.'))).toBeUndefined()
    expect(idProblem('extension', 'a.b'.repeat(50))).toBeUndefined()
    expect(idProblem('tool', 'codebase_lookup_ref')).toBeUndefined()
    expect(idProblem('prompt', '提示.名前')).toBeUndefined()
  })

  it('words what is wrong with the others', () => {
    expect(idProblem('prompt', 'p'.repeat(257))).toBe('must be at most 256 characters')
    expect(idProblem('prompt', `${'a.'.repeat(4000)}a`)).toBe('must be at most 256 characters')
    expect(idProblem('prompt', 'a.b.c.d.e.f.g.h.i.j')).toBe(
      "must be segments separated by at most 8 dots, no segment empty, no ':'",
    )
    for (const id of ['a..b', '.a', 'a.', 'a:b', '.'])
      expect(idProblem('prompt', id), id).toMatch(/no segment empty, no ':'$/)
    expect(idProblem('environ', Array(33).fill('v').join('.'))).toMatch(/^must be at most 32 segments/)
    expect(idProblem('extension', 'a..b')).toMatch(/no segment empty/)
    expect(idProblem('tool', 'a:b')).toBe("must be a function name, with no ':'")
    expect(idProblem('tool', 't'.repeat(257))).toBe('must be at most 256 characters')
  })
})

describe('lookups by id', () => {
  it('refuse a bad id with 400 BAD_REQUEST before reading anything', async () => {
    const store = new EmbeddedStore([])
    const values = vi.spyOn(store, 'values')
    const pages = vi.spyOn(store, 'page')
    const trees = vi.spyOn(store, 'tree')
    const lookups: [string, Promise<unknown>][] = [
      ['prompt', getPrompt(store, `${'a.'.repeat(4000)}a`)],
      ['prompt', getPrompt(store, 'a.b.c.d.e.f.g.h.i.j')],
      ['extension', getExtension(store, 'e'.repeat(300))],
      ['environ', getEnviron(store, Array(33).fill('v').join('.'))],
      ['tool', getTool(store, 't'.repeat(300))],
    ]
    for (const [kind, lookup] of lookups) {
      const error = await lookup.catch((e: unknown) => e)
      expect(error, kind).toBeInstanceOf(ServiceError)
      expect(error, kind).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(`^the ${kind} id must`) })
    }
    expect(values).not.toHaveBeenCalled()
    expect(pages).not.toHaveBeenCalled()
    expect(trees).not.toHaveBeenCalled()
  })

  it('read a prompt id at the limit in one read of at most 9 keys', async () => {
    const store = new EmbeddedStore([])
    const values = vi.spyOn(store, 'values')
    await expect(getPrompt(store, 'a.b.c.d.e.f.g.h.i')).rejects.toMatchObject({ code: 'NOT_FOUND' })
    expect(values).toHaveBeenCalledTimes(1)
    expect(values.mock.calls[0]?.[0]).toHaveLength(9)
  })
})

describe('unnamable', () => {
  it('names why no id can name a stored key', () => {
    expect(unnamable('environs', 'shenma:environs:vscode:frameworks')).toBeUndefined()
    expect(unnamable('environs', 'shenma:environs:a.b:c')).toBe("has a '.' inside a key segment, so no id can name it")
    expect(unnamable('environs', `shenma:environs:${Array(33).fill('v').join(':')}`)).toBe(
      'has more than 32 path segments, so no id can name it',
    )
    expect(unnamable('templates', 'shenma:templates:a:b:c:d:e:f:g:h:i:j')).toBe(
      'has more than 9 path segments, so no id can name it',
    )
    expect(unnamable('extensions', `shenma:extensions:${'e'.repeat(257)}`)).toBe(
      'has an id longer than 256 characters, so no id can name it',
    )
    expect(unnamable('tools', `shenma:tools:m:${'t'.repeat(300)}`)).toMatch(/longer than 256/)
    expect(unnamable('environs', 'shenma:environs:a::b')).toBe('has an empty path segment, so no id can name it')
    expect(unnamable('extensions', 'shenma:extensions:a:')).toBe('has an empty path segment, so no id can name it')
    expect(unnamable('tools', 'shenma:tools:a.b:c')).toBeUndefined()
    expect(unnamable('tools', 'shenma:tools:a::c')).toBeUndefined()
  })
})
