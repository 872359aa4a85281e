// How the executor runs functions that return Promises: calls start as
// execution reaches them and run at the same time; nothing here reads a clock.
import { describe, expect, it } from 'vitest'
import { EMPTY, ExecError, LimitError, parse } from '../../../lib/template'
import type { TemplateFunction, Value } from '../../../lib/template'

/** Async functions whose calls the test resolves by hand, counting how many are in flight at once. */
function controlled() {
  const calls: { args: Value[]; resolve: (v: Value) => void; reject: (e: Error) => void }[] = []
  let active = 0
  let maxActive = 0
  const fn: TemplateFunction = (...args) =>
    new Promise<Value>((resolve, reject) => {
      active++
      maxActive = Math.max(maxActive, active)
      const settle =
        <T>(f: (x: T) => void) =>
        (x: T) => {
          active--
          f(x)
        }
      calls.push({ args, resolve: settle(resolve), reject: settle(reject) })
    })
  return {
    fn,
    calls,
    get maxActive() {
      return maxActive
    },
    /** Lets pending continuations run until nothing more happens. */
    async settle() {
      for (let i = 0; i < 20; i++) await Promise.resolve()
    },
  }
}

describe('independent async calls', () => {
  it('all start before any finishes, wherever they stand in the template', async () => {
    const slow = controlled()
    const t = parse(
      't',
      '{{slow 0}} {{(slow 1).x}} {{if slow 2}}yes{{end}} {{range slow 3}}[{{.}}]{{end}} {{with slow 4}}{{.y}}{{end}} ' +
        '{{printf "%v-%v" (slow 5) (slow 6)}} {{$v := slow 7}}{{len (slow 8)}} {{slow 9 | printf "<%v>"}} {{$v}}',
      { functions: ['slow'] },
    )
    const rendering = t.execute({}, { funcs: { slow: slow.fn } })
    await slow.settle()
    // Ten calls, all in flight together: ten 100 ms calls take about 100 ms, not a second.
    expect(slow.calls).toHaveLength(10)
    expect(slow.maxActive).toBe(10)
    const answers: Value[] = ['a', { x: 'b' }, true, ['c', 'd'], { y: 'e' }, 5, 6, 'v', 'eight', 9]
    // Finishing in reverse order must not reorder the output.
    for (const i of [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]) slow.calls.find((c) => c.args[0] === BigInt(i))?.resolve(answers[i])
    expect(await rendering).toBe('a b yes [c][d] e 5-6 5 <9> v')
  })

  it('a call whose operands are pending starts when they arrive, still alongside the others', async () => {
    const slow = controlled()
    const t = parse('t', '{{slow (slow 1)}}{{slow 2}}', { functions: ['slow'] })
    const rendering = t.execute({}, { funcs: { slow: slow.fn } })
    await slow.settle()
    expect(slow.calls.map((c) => c.args[0])).toEqual([1n, 2n])
    slow.calls[0]?.resolve('inner')
    await slow.settle()
    expect(slow.calls.map((c) => c.args[0])).toEqual([1n, 2n, 'inner'])
    slow.calls[2]?.resolve('A')
    slow.calls[1]?.resolve('B')
    expect(await rendering).toBe('AB')
  })

  it('waits before going on where a branch assigns a variable the rest reads', async () => {
    const slow = controlled()
    const t = parse('t', '{{$x := 1}}{{if slow "c"}}{{$x = 2}}{{end}}{{slow $x}}', { functions: ['slow'] })
    const rendering = t.execute({}, { funcs: { slow: slow.fn } })
    await slow.settle()
    expect(slow.calls).toHaveLength(1)
    slow.calls[0]?.resolve(true)
    await slow.settle()
    expect(slow.calls[1]?.args).toEqual([2n])
    slow.calls[1]?.resolve('done')
    expect(await rendering).toBe('done')
    expect(slow.maxActive).toBe(1)
  })

  it('reads variables as they were where the call stands, not when its value arrives', async () => {
    const slow = controlled()
    const t = parse('t', '{{$x := "before"}}{{(slow 1) | printf "%v %v" $x}}{{$x = "after"}} {{$x}}', {
      functions: ['slow'],
    })
    const rendering = t.execute({}, { funcs: { slow: slow.fn } })
    await slow.settle()
    slow.calls[0]?.resolve('value')
    expect(await rendering).toBe('before value after')
  })

  it('short-circuits and/or on pending operands, calling nothing it does not need', async () => {
    const slow = controlled()
    const t = parse('t', '{{or (slow 1) (slow 2)}} {{and (slow 3) (slow 4)}}', { functions: ['slow'] })
    const rendering = t.execute({}, { funcs: { slow: slow.fn } })
    await slow.settle()
    expect(slow.calls.map((c) => c.args[0])).toEqual([1n, 3n])
    slow.calls[0]?.resolve('first')
    slow.calls[1]?.resolve(0)
    expect(await rendering).toBe('first 0')
    expect(slow.calls).toHaveLength(2)
  })

  it('breaks out of a range on a pending condition in order', async () => {
    const slow = controlled()
    const t = parse('t', '{{range .}}{{if slow .}}{{break}}{{end}}{{.}}{{end}}', { functions: ['slow'] })
    const rendering = t.execute([1, 2, 3], { funcs: { slow: slow.fn } })
    for (const stop of [false, true]) {
      await slow.settle()
      slow.calls.at(-1)?.resolve(stop)
    }
    expect(await rendering).toBe('1')
    expect(slow.calls).toHaveLength(2)
  })
})

describe('failures of async calls', () => {
  it('fail the execution even when nothing reads the value', async () => {
    const failing: TemplateFunction = () => Promise.reject(new Error('boom'))
    const t = parse('t', 'a{{$unused := failing}}b', { functions: ['failing'] })
    await expect(t.execute({}, { funcs: { failing } })).rejects.toThrow(
      'template: t:1:14: executing "t" at <failing>: error calling failing: boom',
    )
  })

  it('report the failure Go would meet first, whichever settles first', async () => {
    const slow = controlled()
    const t = parse('t', '{{slow 1}}{{slow 2}}', { functions: ['slow'] })
    const rendering = t.execute({}, { funcs: { slow: slow.fn } })
    await slow.settle()
    slow.calls[1]?.reject(new Error('second'))
    await slow.settle()
    slow.calls[0]?.reject(new Error('first'))
    const error = await rendering.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ExecError)
    expect((error as ExecError).detail).toBe('error calling slow: first')
  })

  describe('in work rendered aside', () => {
    /** Renders `text` with yes (pending true) and fail (controlled), failing the calls in `order`; the reported detail. */
    async function reported(text: string, order: string[], templates?: Record<string, string>): Promise<string> {
      const fail = controlled()
      const yes: TemplateFunction = async () => true
      const t = parse('t', text, { functions: ['yes', 'fail'], templates })
      const rendering = t.execute({}, { funcs: { yes, fail: fail.fn } })
      for (const msg of order) {
        await fail.settle()
        fail.calls.find((c) => c.args[0] === msg)?.reject(new Error(msg))
      }
      const error = await rendering.catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ExecError)
      return (error as ExecError).detail
    }

    // Before: a fork's places were fractions of its parent's, and a fork inside a fork tied with what followed it.
    it('report the failure in a nested pending branch before a later one of the branch around it', async () => {
      const text = '{{if yes}}{{if yes}}{{fail "inner"}}{{end}}{{fail "outer-next"}}{{end}}'
      expect(await reported(text, ['outer-next', 'inner'])).toBe('error calling fail: inner')
    })

    it('report a failure in a template a pending branch calls before a later one of the branch', async () => {
      const text = '{{if yes}}{{template "sub"}}{{fail "after"}}{{end}}'
      expect(await reported(text, ['after', 'in-sub'], { sub: '{{fail "in-sub"}}' })).toBe('error calling fail: in-sub')
    })

    it('report a failure in the rest of an and after a pending operand before what follows the and', async () => {
      const text = '{{and yes (fail "in-and")}}{{fail "after"}}'
      expect(await reported(text, ['after', 'in-and'])).toBe('error calling fail: in-and')
    })

    it('report the failure of a later branch after that of an earlier one', async () => {
      const text = '{{if yes}}{{if yes}}{{fail "a"}}{{end}}{{end}}{{if yes}}{{fail "b"}}{{end}}'
      expect(await reported(text, ['b', 'a'])).toBe('error calling fail: a')
    })
  })

  it('leave nothing unhandled when a later operand fails at once', async () => {
    const unhandled: unknown[] = []
    const listener = (e: unknown) => unhandled.push(e)
    process.on('unhandledRejection', listener)
    try {
      const failing: TemplateFunction = () => Promise.reject(new Error('boom'))
      const t = parse('t', '{{print (failing) .a.b}}', { functions: ['failing'] })
      await expect(t.execute({ a: null }, { funcs: { failing } })).rejects.toThrow('error calling failing: boom')
      // Node reports unhandled rejections once the microtasks have run: on the next turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('unhandledRejection', listener)
    }
    // Before: the value made from the first operand was marked handled only after all were evaluated.
    expect(unhandled).toEqual([])
  })

  it('come before a later synchronous error', async () => {
    const slow = controlled()
    const t = parse('t', '{{slow 1}}{{.a.b}}', { functions: ['slow'] })
    const rendering = t.execute({ a: null }, { funcs: { slow: slow.fn } })
    await slow.settle()
    slow.calls[0]?.reject(new Error('early'))
    await expect(rendering).rejects.toThrow('error calling slow: early')
  })
})

describe('cancellation and limits', () => {
  it('stops at once when the signal aborts, with its reason', async () => {
    const slow = controlled()
    const controller = new AbortController()
    const t = parse('t', '{{slow 1}}', { functions: ['slow'] })
    const rendering = t.execute({}, { funcs: { slow: slow.fn }, signal: controller.signal })
    await slow.settle()
    const reason = new Error('deadline')
    controller.abort(reason)
    await expect(rendering).rejects.toBe(reason)
  })

  it('does not start when the signal has already aborted', async () => {
    const reason = new Error('too late')
    await expect(parse('t', 'x').execute({}, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason)
  })

  it('limits the output, with a LimitError at the node that would pass it', async () => {
    const t = parse('t', '{{range .}}0123456789{{end}}')
    const error = await t.execute(Array(20).fill(1), { maxOutput: 100 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LimitError)
    expect(error).toMatchObject({
      limit: 'maxOutput',
      message: 'template: t:1:11: executing "t" at <0123456789>: output exceeds the limit of 100 characters',
    })
    expect(await t.execute(Array(10).fill(1), { maxOutput: 100 })).toHaveLength(100)
  })

  it('counts pending output when it arrives', async () => {
    const t = parse('t', '{{range .}}{{slow}}{{end}}', { functions: ['slow'] })
    const slow = async (): Promise<Value> => '0123456789'
    await expect(t.execute(Array(11).fill(1), { funcs: { slow }, maxOutput: 100 })).rejects.toMatchObject({
      limit: 'maxOutput',
      message: 'template: t:1:13: executing "t" at <{{slow}}>: output exceeds the limit of 100 characters',
    })
    expect(await t.execute(Array(10).fill(1), { funcs: { slow }, maxOutput: 100 })).toHaveLength(100)
  })

  it('ends runaway work by its step budget, whatever the clock says', async () => {
    const t = parse('t', '{{range 100000000}}{{end}}done')
    const error = await t.execute({}, { maxSteps: 1000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DOMException)
    expect((error as DOMException).name).toBe('TimeoutError')
    expect(await parse('t', '{{range 10}}.{{end}}').execute({}, { maxSteps: 1000 })).toBe('..........')
  })

  it('ends endless recursion with an error, not a stack overflow', async () => {
    const t = parse('t', '{{define "loop"}}{{template "loop" .}}{{end}}{{template "loop" .}}')
    await expect(t.execute({}, { maxDepth: 50 })).rejects.toMatchObject({
      limit: 'maxDepth',
      message: 'template: t:1:28: executing "loop" at <{{template "loop" .}}>: exceeded maximum template depth (50)',
    })
    const error = await t.execute({}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LimitError)
    expect(error).toMatchObject({ limit: 'maxDepth' })
    expect((error as Error).message).toMatch(/exceeded maximum template depth \(1000\)|recurses too deeply/)
  })
})

describe('functions the caller supplies', () => {
  it('get a byte of a string as the int it is worth, as Go passes a uint8', async () => {
    const seen: Value[] = []
    const double: TemplateFunction = (n) => {
      seen.push(n)
      if (typeof n !== 'bigint') throw new Error(`not an int: ${typeof n}`)
      return n * 2n
    }
    const t = parse('t', '{{double (index "A" 0)}} {{index "A" 0 | double}}', { functions: ['double'] })
    expect(await t.execute(null, { funcs: { double } })).toBe('130 130')
    expect(seen).toEqual([65n, 65n])
  })
})

describe('JavaScript internals', () => {
  it('are missing keys, never values', async () => {
    const t = parse(
      't',
      '{{.constructor}}|{{.constructor.constructor}}|{{.__proto__}}|{{.toString}}|{{.hasOwnProperty}}',
    )
    expect(await t.execute({})).toBe('<no value>|<no value>|<no value>|<no value>|<no value>')
    await expect(t.execute({}, { missingKey: 'error' })).rejects.toThrow('map has no entry for key "constructor"')
    const idx = parse('t', '{{index . "__proto__"}}|{{index . "constructor"}}|{{len .}}')
    expect(await idx.execute({})).toBe('<no value>|<no value>|0')
  })

  it('are ordinary keys when the data has them', async () => {
    const data = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": "c"}') as unknown
    const t = parse('t', '{{range $k, $v := .}}{{$k}}={{$v}};{{end}}{{.__proto__.polluted}}')
    expect(await t.execute(data)).toBe('__proto__=map[polluted:1];constructor=c;1')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('static analysis', () => {
  const analysis = (text: string, templates?: Record<string, string>) => parse('t', text, { templates }).analysis

  it('lists the root paths a template reads, minimal, and the functions it calls', () => {
    expect(analysis('{{.vscode.rules}} {{.args.x}} {{if .a.b}}{{.a.b.c}}{{end}} {{lookup .q "k"}}')).toEqual({
      paths: [['a', 'b'], ['args', 'x'], ['q'], ['vscode', 'rules']],
      required: [['a', 'b'], ['args', 'x'], ['q'], ['vscode', 'rules']],
      functions: ['lookup'],
    })
  })

  it('follows dot through with and template calls, and variables through assignments', () => {
    const a = analysis('{{with .m}}{{.n}}{{end}}{{$x := .v}}{{$x.w}}{{template "sub" .s}}{{$.root}}', {
      sub: '{{.deep}}',
    })
    expect(a.paths).toEqual([['m'], ['root'], ['s', 'deep'], ['v']])
  })

  it('requires only what every execution reads: not branches, later and/or operands, or index results', () => {
    const a = analysis(
      '{{if .args.f}}{{.nothere}}{{else}}{{.other}}{{end}}{{with .w}}{{.inner}}{{end}}' +
        '{{and .first .second}}{{index .m "k"}}{{range .r}}{{$.deep}}{{end}}',
    )
    expect(a.required).toEqual([['args', 'f'], ['first'], ['r'], ['w']])
    expect(a.paths).toEqual([
      ['args', 'f'],
      ['deep'],
      ['first'],
      ['m', 'k'],
      ['nothere'],
      ['other'],
      ['r'],
      ['second'],
      ['w'],
    ])
  })

  it("loads a template call's argument whole when the template reads nothing under it", () => {
    expect(analysis('{{template "x" .proj}}', { x: 'constant' }).paths).toEqual([['proj']])
    expect(analysis('{{template "x" .proj}}', { x: '{{.owner}}' }).paths).toEqual([['proj', 'owner']])
    expect(analysis('{{template "x" .proj}}', { x: '{{.owner}}' }).required).toEqual([['proj'], ['proj', 'owner']])
  })

  it('follows recursion without looping or exploding', () => {
    const deep = analysis('{{template "n" .tree}}', { n: '{{.v}}{{if .next}}{{template "n" .next}}{{end}}' })
    expect(deep.paths).toEqual([
      ['tree', 'next'],
      ['tree', 'v'],
    ])
    const wide = '{{define "w"}}{{if .a}}{{template "w" .a}}{{template "w" .b}}{{end}}{{end}}{{template "w" .root}}'
    expect(parse('t', wide).analysis.paths).toEqual([
      ['root', 'a'],
      ['root', 'b'],
    ])
  })

  it('falls back to the longest static prefix for dynamic reads', () => {
    expect(analysis('{{range .files}}{{.name}}{{end}}').paths).toEqual([['files']])
    expect(analysis('{{index .m .k}}').paths).toEqual([['k'], ['m']])
    expect(analysis('{{index .m "a" "b"}}').paths).toEqual([['m', 'a', 'b']])
    expect(analysis('{{.}}').paths).toEqual([[]])
    expect(analysis('{{(f).x}}').functions).toEqual(['f'])
  })
})

describe('EMPTY, the value of a soft failure', () => {
  it('prints as nothing, is false, ranges over nothing, and a field of it is itself, even under missingkey=error', async () => {
    const t = parse(
      't',
      '[{{failed}}][{{(failed).a.b}}][{{if failed}}yes{{else}}no{{end}}][{{range failed}}x{{else}}none{{end}}]' +
        '[{{with failed}}w{{end}}][{{printf "%q" failed}}][{{len failed}}][{{failed | printf "%s!"}}]',
      { functions: ['failed'] },
    )
    const out = await t.execute({}, { funcs: { failed: () => EMPTY }, missingKey: 'error' })
    expect(out).toBe('[][][no][none][][""][0][!]')
  })
})
