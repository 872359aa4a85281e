// Execution stays within its limits whatever the template and the data:
// every builtin counts its work in the step budget and refuses to build a
// string longer than maxOutput before building it; printing deep data stops
// at maxDataDepth; and each limit ends the execution with a LimitError that
// names it, where the step budget and the deadline end it with a TimeoutError.
import { describe, expect, it } from 'vitest'
import { ExecError, LimitError, parse } from '../../../lib/template'
import type { ExecuteOptions, Value } from '../../../lib/template'

/** What executing `text` with `data` throws (or the output, to fail an expectation clearly). */
async function failure(text: string, data: unknown = null, options: ExecuteOptions = {}): Promise<unknown> {
  return parse('t', text)
    .execute(data, options)
    .then(
      (output) => `no error; output of ${output.length} characters`,
      (e: unknown) => e,
    )
}

/** Data nested `depth` levels: arrays inside arrays, with a map at every other level. */
function nested(depth: number): unknown {
  let v: unknown = 'leaf'
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { k: v }
  return v
}

describe('a string doubled until it is huge', () => {
  // Before: "invalid size", a fatal error of the runtime, once the string passed its largest size.
  const doubled = (times: number, then: string) =>
    `{{$s := "xx"}}{{range ${times}}}{{$s = print $s $s}}{{end}}{{len (${then} $s)}}`

  it.each(['html', 'js', 'urlquery', 'print', 'println'])(
    'stops at the output limit with a LimitError, before %s ever sees it',
    async (then) => {
      const e = await failure(doubled(27, then))
      expect(e).toBeInstanceOf(LimitError)
      expect(e).toMatchObject({
        limit: 'maxOutput',
        message:
          'template: t:1:33: executing "t" at <print $s $s>: error calling print: ' +
          'the result would exceed the output limit of 4194304 characters',
      })
    },
  )

  it.each([
    ['html', '"', 5],
    ['js', '<', 6],
    ['urlquery', 'é', 6],
  ])('is refused by %s when escaping would pass the limit, and escaped when it would not', async (fn, c, grows) => {
    const t = parse('t', `{{${fn} .s}}`)
    const fits = c.repeat(Math.floor(1000 / grows))
    expect(await t.execute({ s: fits }, { maxOutput: 1000 })).toHaveLength(fits.length * grows)
    const e = await failure(`{{${fn} .s}}`, { s: fits + c }, { maxOutput: 1000 })
    expect(e).toMatchObject({
      limit: 'maxOutput',
      message: `template: t:1:2: executing "t" at <${fn} .s>: error calling ${fn}: the result would exceed the output limit of 1000 characters`,
    })
  })
})

describe('printf', () => {
  it.each([
    ['a width', '"%5000d" 1'],
    ['a width from an argument', '"%*d" 5000 1'],
    ['zero padding', '"%05000d" 1'],
    ['a precision of an int', '"%.5000d" 1'],
    ['a precision of a float', '"%.5000f" 1.5'],
    ['a precision of %e', '"%.5000e" 1.5'],
    ['a precision of %x on a float', '"%.5000x" 1.5'],
    ['%#g', '"%#.5000g" 1.5'],
    ['%U', '"%.5000U" 1'],
    ['a width of a string', '"%5000s" "x"'],
    ['%x of a string', '"%x" .s'],
    ['%q of a string', '"%q" .c'],
    ['a width of a list', '"%5000v" .list'],
  ])('refuses %s past the output limit before building it', async (_, operands) => {
    const data = { s: 'x'.repeat(600), c: '\u0001'.repeat(300), list: [1, 2] }
    const e = await failure(`{{printf ${operands}}}`, data, { maxOutput: 1000 })
    expect(e).toBeInstanceOf(LimitError)
    expect(e).toMatchObject({
      limit: 'maxOutput',
      message: `template: t:1:2: executing "t" at <printf ${operands}>: error calling printf: the result would exceed the output limit of 1000 characters`,
    })
  })

  it('refuses the widest width Go parses under the default limit', async () => {
    expect(await failure('{{printf "%9999999d" 1}}')).toMatchObject({ limit: 'maxOutput' })
  })

  it('keeps widths and precisions that fit, and %g that needs few digits whatever its precision', async () => {
    const t = parse('t', '{{printf "%20d|%.3f|%-5s|%.9999999g|%x" 7 1.5 "ab" 1.5 "hi"}}')
    expect(await t.execute(null)).toBe(`${' '.repeat(19)}7|1.500|ab   |1.5|6869`)
  })

  it('refuses a format string of bad verbs that would grow past the limit', async () => {
    const e = await failure('{{printf .f}}', { f: '%z'.repeat(100) }, { maxOutput: 1000 })
    expect(e).toMatchObject({ limit: 'maxOutput' })
  })
})

describe('the strings built in all', () => {
  // Before: the limit bounded one string, not all of them: this 4 KB template held 107 MB of strings.
  it('are at most 4 times maxOutput an execution: past that, a LimitError on maxOutput', async () => {
    let text = '{{$x := "é"}}{{range 21}}{{$x = print $x $x}}{{end}}'
    for (let i = 0; i < 90; i++) text += `{{$a${i} := slice (print $x ${i}) 0 2000000}}`
    const e = await failure(text)
    expect(e).toBeInstanceOf(LimitError)
    expect(e).toMatchObject({
      limit: 'maxOutput',
      message: expect.stringMatching(
        /^template: t:1:\d+: executing "t" at <(print|slice) [^>]*>: error calling (print|slice): the strings built passed 16777216 characters, 4 times the output limit$/,
      ),
    })
  })

  it('follow maxOutput, and count strings passed through as they are for nothing', async () => {
    const data = { s: 'x'.repeat(300) }
    expect(await failure('{{range 14}}{{$x := print $.s 1}}{{end}}', data, { maxOutput: 1000 })).toMatchObject({
      limit: 'maxOutput',
    })
    const passed = '{{range 1000}}{{$x := print $.s}}{{$y := html $.s}}{{$z := slice $.s 0}}{{end}}ok'
    expect(await parse('t', passed).execute(data, { maxOutput: 1000 })).toBe('ok')
  })
})

describe('printing data nested deep', () => {
  // Before: printing data nested thousands deep overflowed the stack.
  it.each([
    ['an action', '{{.}}'],
    ['print', '{{print .}}'],
    ['printf %v', '{{printf "%v" .}}'],
    ['printf %#v', '{{printf "%#v" .}}'],
    ['html', '{{html .}}'],
    ['a bad verb', '{{printf "%d" .}}'],
  ])('through %s stops at maxDataDepth with a LimitError', async (_, text) => {
    const e = await failure(text, nested(5000))
    expect(e).toBeInstanceOf(LimitError)
    expect(e).toMatchObject({ limit: 'maxDataDepth' })
    expect((e as Error).message).toMatch(
      /^template: t:1:\d+: executing "t" at <.*>: .*data nested deeper than 100 levels$/,
    )
  })

  it('prints 100 levels, and refuses 101; the limit is an option', async () => {
    const t = parse('t', '{{.}}')
    expect(await t.execute(nested(100))).toMatch(/^map\[k:\[map\[k:\[/)
    expect(await failure('{{.}}', nested(101))).toMatchObject({
      limit: 'maxDataDepth',
      message: 'template: t:1:2: executing "t" at <{{.}}>: data nested deeper than 100 levels',
    })
    expect(await t.execute(nested(150), { maxDataDepth: 150 })).toMatch(/leaf/)
    expect(await failure('{{.}}', nested(11), { maxDataDepth: 10 })).toMatchObject({ limit: 'maxDataDepth' })
  })

  it('prints wide data of any depth within the limit', async () => {
    const wide = Array.from({ length: 1000 }, (_, i) => ({ i, tags: ['a', 'b'] }))
    expect(await parse('t', '{{len (print .)}}').execute(wide)).toBe('21891')
  })
})

describe('the step budget', () => {
  const big = { s: 'x<'.repeat(50_000), t: 'x<'.repeat(50_000) }
  const long = { s: 'x<'.repeat(5_000), t: 'x<'.repeat(5_000) }

  it.each([
    ['html', '{{$x := html $.s}}'],
    ['js', '{{$x := js $.s}}'],
    ['urlquery', '{{$x := urlquery $.s}}'],
    ['print', '{{$x := print $.s}}'],
    ['printf', '{{$x := printf "%s" $.s}}'],
    ['slice', '{{$x := slice $.s 1}}'],
    ['eq', '{{$x := eq $.s $.t}}'],
    ['lt', '{{$x := lt $.s $.t}}'],
  ])('counts the characters %s touches', async (_, action) => {
    // 200 calls on 10,000 characters: more than 20,000 steps, where the walk alone takes about 600.
    const text = `{{range 200}}${action}{{end}}done`
    expect(await parse('t', text).execute(long, { maxSteps: 1e9 })).toBe('done')
    expect(await parse('t', `{{range 200}}{{$x := 1}}{{end}}done`).execute(long, { maxSteps: 20_000 })).toBe('done')
    const e = await failure(text, long, { maxSteps: 20_000 })
    expect(e).toBeInstanceOf(DOMException)
    expect((e as DOMException).name).toBe('TimeoutError')
  })

  it('reads the clock in the middle of a builtin’s work', async () => {
    const e = await failure('{{$x := html .s}}', big, { deadline: Date.now() - 1 })
    expect(e).toBeInstanceOf(DOMException)
    expect((e as DOMException).name).toBe('TimeoutError')
  })

  it('lets index, len and slice read a long string without encoding it again at every call', async () => {
    const s = 'é'.repeat(200_000)
    const text =
      '{{range $i, $_ := .n}}{{if eq (index $.s $i) 195}}1{{end}}{{$x := len $.s}}{{$y := slice $.s 0 2}}{{end}}'
    const n = Array.from({ length: 20_000 }, () => 0)
    // Encoding the string again at each of the 60,000 calls would take 187 million steps; looking it up takes 6.
    const out = await parse('t', text).execute({ s, n }, { maxSteps: 10_000_000 })
    expect(out).toBe('1'.repeat(10_000))
  })
})

describe('turns for the rest of the isolate (turnSteps)', () => {
  /** Renders `text` with `turnSteps`; `fired` says, when the template calls it, how many 0 ms timers set before it fired. */
  function race(text: string, turnSteps?: number) {
    let timers = 0
    for (let i = 0; i < 3; i++) setTimeout(() => timers++, 0)
    const funcs = { fired: () => timers }
    return parse('t', text, { functions: ['fired'] }).render({}, { funcs, turnSteps })
  }

  it('lets timers due meanwhile fire during a long walk, and renders what it would have', async () => {
    const text = '{{range 20000}}{{end}}{{fired}}'
    // Without turns, the walk holds the thread: nothing else runs until it ends, and it ends synchronously.
    expect(race(text)).toBe('0')
    const turned = race(text, 1000)
    expect(turned).toBeInstanceOf(Promise)
    expect(await turned).toBe('3')
  })

  it('gives none to a walk shorter than turnSteps, which stays synchronous', () => {
    expect(race('{{range 100}}{{end}}{{fired}}', 1000)).toBe('0')
  })

  it('keeps the output in order across turns, pending calls among them', async () => {
    const funcs = { later: (n: Value) => Promise.resolve(n) }
    const data = Array.from({ length: 3000 }, (_, i) => (i % 500 === 0 ? String(i) : ''))
    const text = '{{range .}}{{if .}}{{later .}},{{end}}{{end}}'
    const out = await parse('t', text, { functions: ['later'] }).execute(data, { funcs, turnSteps: 700 })
    expect(out).toBe('0,500,1000,1500,2000,2500,')
  })
})

describe('big maps', () => {
  const m = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))

  it('are counted in the budget when listed: a truth test, len and range', async () => {
    for (const action of [
      '{{if $.m}}{{end}}',
      '{{$x := not $.m}}',
      '{{$x := len $.m}}',
      '{{range $.m}}{{break}}{{end}}',
    ]) {
      const e = await failure(`{{range 3}}${action}{{end}}`, { m }, { maxSteps: 10_000 })
      expect(e).toBeInstanceOf(DOMException)
    }
  })

  it('are listed once an execution, however often they are read', async () => {
    const text = '{{range 1000}}{{if $.m}}{{len $.m}}{{end}}{{range $k, $v := $.m}}{{break}}{{end}}{{and $.m 1}}{{end}}'
    // Sorting 100,000 keys costs some 600,000 steps: once.
    const out = await parse('t', text).execute({ m }, { maxSteps: 1_000_000 })
    expect(out).toBe('1000001'.repeat(1000))
  })
})

describe('LimitError', () => {
  it('is an ExecError naming its limit', async () => {
    const e = await failure('{{.}}', nested(200))
    expect(e).toBeInstanceOf(ExecError)
    expect(e).toBeInstanceOf(LimitError)
    expect((e as LimitError).name).toBe('LimitError')
  })

  it('replaces a JS stack overflow, when templates nest deeper than the stack allows', async () => {
    const e = await failure('{{define "loop"}}{{template "loop" .}}{{end}}{{template "loop" .}}', null, {
      maxDepth: 1e9,
    })
    expect(e).toBeInstanceOf(LimitError)
    expect(e).toMatchObject({ limit: 'maxDepth', message: 'template: t: the template recurses too deeply' })
  })
})

describe('a RangeError during execution', () => {
  it('is a LimitError on maxOutput when a string passes the JS engine’s largest', async () => {
    // Strings joined by print are ropes: doubling one thirty times costs nothing until V8 refuses its length.
    const text = '{{$s := "x"}}{{range 30}}{{$s = print $s $s}}{{end}}{{len $s}}'
    const e = await failure(text, null, { maxOutput: 2 ** 31, maxSteps: 1e9 })
    expect(e).toBeInstanceOf(LimitError)
    expect(e).toMatchObject({ limit: 'maxOutput' })
  })

  it('stays itself when it is not about size: a bug is no limit', async () => {
    const data = {
      get x(): unknown {
        throw new RangeError('Invalid count value: -1')
      },
    }
    const e = await failure('{{.x}}', data)
    expect(e).not.toBeInstanceOf(ExecError)
    expect(e).toBeInstanceOf(RangeError)
    expect((e as Error).message).toBe('Invalid count value: -1')
  })
})

describe('the node an execution message quotes', () => {
  // Before: quoted whole, as Go quotes it: a failing command holding a 1 MB literal made a 1 MB message.
  it('is cut at 256 characters, `...` marking the cut', async () => {
    const e = await failure(`{{index "${'x'.repeat(1_000_000)}" 2000000}}`)
    expect((e as Error).message).toBe(
      `template: t:1:2: executing "t" at <index "${'x'.repeat(249)}...>: error calling index: index out of range: 2000000`,
    )
    const exact = `index "${'x'.repeat(243)}" 1000`
    expect((await failure(`{{${exact}}}`)) as Error).toMatchObject({
      message: expect.stringContaining(`at <${exact}>:`),
    })
  })

  it('is cut in the detail too, and never inside a surrogate pair', async () => {
    const e = await failure(`{{"${'😀'.repeat(200_000)}" 1}}`)
    const quoted = `"${'😀'.repeat(127)}...`
    expect((e as Error).message).toBe(
      `template: t:1:2: executing "t" at <${quoted}>: can't give argument to non-function ${quoted}`,
    )
  })
})
