import { describe, expect, it } from 'vitest'
import { formatValue, sprint, sprintf, sprintln } from '../../../lib/template/fmt'
import type { Value } from '../../../lib/template/value'

/*
 * The expected outputs are Go 1.19's, printed by fmt_golden.go (which holds the
 * same cases with Go types and checks that text/template's print, printf and
 * println agree with fmt): `go run test/unit/template/fmt_golden.go`.
 * Numbers are float64, bigints are int, undefined is a missing map key (a nil
 * interface{} by the time it reaches fmt).
 */

const sprintfCases: [string, Value[], string][] = [
  ['%v', [3], '3'],
  ['%v', [1.5], '1.5'],
  ['%v', [-0], '-0'],
  ['%v', [0], '0'],
  ['%v', [1e21], '1e+21'],
  ['%v', [100000000000000000000], '1e+20'],
  ['%v', [1000000], '1e+06'],
  ['%v', [999999], '999999'],
  ['%v', [123456], '123456'],
  ['%v', [1234567], '1.234567e+06'],
  ['%v', [0.000001], '1e-06'],
  ['%v', [0.0001], '0.0001'],
  ['%v', [0.00001], '1e-05'],
  ['%v', [1e-7], '1e-07'],
  ['%v', [NaN], 'NaN'],
  ['%v', [Infinity], '+Inf'],
  ['%v', [-Infinity], '-Inf'],
  ['%v', [5e-324], '5e-324'],
  ['%v', [1.7976931348623157e308], '1.7976931348623157e+308'],
  ['%v', [0.1], '0.1'],
  ['%v', [0.3], '0.3'],
  ['%v', [123456789], '1.23456789e+08'],
  ['%v', [-0.000025], '-2.5e-05'],
  ['%v', [100], '100'],
  ['%v', [1e100], '1e+100'],
  ['%.0f', [0.5], '0'],
  ['%.0f', [1.5], '2'],
  ['%.0f', [2.5], '2'],
  ['%.0f', [-0.5], '-0'],
  ['%.2f', [1.005], '1.00'],
  ['%.2f', [0.125], '0.12'],
  ['%.2f', [0.375], '0.38'],
  ['%f', [1e-7], '0.000000'],
  ['%f', [123456789], '123456789.000000'],
  ['%e', [123456789], '1.234568e+08'],
  ['%.3e', [123456789], '1.235e+08'],
  ['%g', [123456789], '1.23456789e+08'],
  ['%.3g', [123456789], '1.23e+08'],
  ['%.10g', [123456789], '123456789'],
  ['%G', [1e-10], '1E-10'],
  ['%E', [1.5], '1.500000E+00'],
  ['%F', [2], '2.000000'],
  ['%.20f', [0.1], '0.10000000000000000555'],
  ['%.30e', [0.1], '1.000000000000000055511151231258e-01'],
  ['%.0e', [2.5], '2e+00'],
  ['%.0e', [25], '2e+01'],
  ['%.1e', [0.25], '2.5e-01'],
  ['%.40g', [0.3333333333333333], '0.3333333333333333148296162562473909929395'],
  ['%.17g', [0.1], '0.10000000000000001'],
  ['%g', [1e21], '1e+21'],
  ['%g', [0.00001], '1e-05'],
  ['%.3g', [0.0001234], '0.000123'],
  ['%.3g', [1000], '1e+03'],
  ['%.1f', [0.05], '0.1'],
  ['%.1f', [0.25], '0.2'],
  ['%.2f', [0.006], '0.01'],
  ['%.2f', [0.0001], '0.00'],
  ['%.3f', [999.9999], '1000.000'],
  ['%e', [0], '0.000000e+00'],
  ['%f', [-0], '-0.000000'],
  ['%g', [0], '0'],
  ['%.0g', [12.5], '1e+01'],
  [
    '%f',
    [1e300],
    '1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160.000000',
  ],
  ['%.2e', [5e-324], '4.94e-324'],
  ['%e', [1e-300], '1.000000e-300'],
  ['%.16e', [0.3333333333333333], '3.3333333333333331e-01'],
  ['%.18e', [0.3333333333333333], '3.333333333333333148e-01'],
  ['%.19e', [0.3333333333333333], '3.3333333333333331483e-01'],
  ['%g', [100000], '100000'],
  ['%g', [1000000], '1e+06'],
  ['%.5g', [100000], '1e+05'],
  ['%#g', [1], '1.00000'],
  ['%#.3g', [1], '1.00'],
  ['%#v', [1], '1'],
  ['%#v', [1.5], '1.5'],
  ['%#e', [1], '1.000000e+00'],
  ['%#.0f', [3], '3.'],
  ['%#g', [1000000], '1.00000e+06'],
  ['%#g', [0], '0.00000'],
  ['%#.4g', [123456], '1.235e+05'],
  ['%+.2f', [3.14159], '+3.14'],
  ['% .2f', [3.14159], ' 3.14'],
  ['%08.3f', [-3.14159], '-003.142'],
  ['%-8.2f|', [3.14159], '3.14    |'],
  ['%+08.2f', [3.14159], '+0003.14'],
  ['%08f', [NaN], '     NaN'],
  ['%+f', [Infinity], '+Inf'],
  ['% f', [NaN], ' NaN'],
  ['%+v', [NaN], 'NaN'],
  ['%08v', [-Infinity], '    -Inf'],
  ['%5.2f|%-8v|%x', [3.14159, 'héllo', 'héllo'], ' 3.14|héllo   |68c3a96c6c6f'],
  ['%10.3v|', [3.14159], '      3.14|'],
  ['%.3v', [1234.5678], '1.23e+03'],
  ['%+v', [1.5], '1.5'],
  ['%+g', [1.5], '+1.5'],
  ['%010.2e', [-1234.5], '-01.23e+03'],
  ['%x', [1.5], '0x1.8p+00'],
  ['%X', [1.5], '0X1.8P+00'],
  ['%x', [3], '0x1.8p+01'],
  ['%.2x', [0.3333333333333333], '0x1.55p-02'],
  ['%.0x', [1.5], '0x1p+01'],
  ['%#x', [1], '0x1.0000p+00'],
  ['%x', [0], '0x0p+00'],
  ['%x', [-0], '-0x0p+00'],
  ['%x', [5e-324], '0x1p-1074'],
  ['%x', [1e300], '0x1.7e43c8800759cp+996'],
  ['%b', [1], '4503599627370496p-52'],
  ['%b', [0], '0p-1074'],
  ['%b', [-5e-324], '-1p-1074'],
  ['%.3X', [0.6666666666666666], '0X1.555P-01'],
  ['%d', [42n], '42'],
  ['%+d', [42n], '+42'],
  ['% d', [42n], ' 42'],
  ['%5d|', [42n], '   42|'],
  ['%-5d|', [42n], '42   |'],
  ['%05d', [-42n], '-0042'],
  ['%.3d', [7n], '007'],
  ['%.0d|', [0n], '|'],
  ['%5.0d|', [0n], '     |'],
  ['%x', [255n], 'ff'],
  ['%X', [255n], 'FF'],
  ['%#x', [255n], '0xff'],
  ['%#X', [255n], '0XFF'],
  ['%o', [8n], '10'],
  ['%#o', [8n], '010'],
  ['%#o', [0n], '0'],
  ['%O', [8n], '0o10'],
  ['%b', [5n], '101'],
  ['%#b', [5n], '0b101'],
  ['%x', [-255n], '-ff'],
  ['%#08x', [255n], '0x000000ff'],
  ['%08.3d', [5n], '     005'],
  ['%+.3d', [5n], '+005'],
  ['% 05d', [5n], ' 0005'],
  ['%c', [65n], 'A'],
  ['%c', [128512n], '😀'],
  ['%c', [-1n], '�'],
  ['%c', [55296n], '�'],
  ['%5c|', [120n], '    x|'],
  ['%q', [65n], "'A'"],
  ['%q', [9786n], "'☺'"],
  ['%+q', [9786n], "'\\u263a'"],
  ['%q', [10n], "'\\n'"],
  ['%q', [39n], "'\\''"],
  ['%q', [1114112n], "'�'"],
  ['%#q', [128512n], "'😀'"],
  ['%U', [128512n], 'U+1F600'],
  ['%#U', [9786n], "U+263A '☺'"],
  ['%#U', [10n], 'U+000A'],
  ['%.6U', [65n], 'U+000041'],
  ['%-8U|', [65n], 'U+0041  |'],
  ['%08U', [65n], '  U+0041'],
  ['%U', [-1n], 'U+FFFFFFFFFFFFFFFF'],
  ['%v', [7n], '7'],
  ['%#v', [7n], '7'],
  ['%+v', [7n], '7'],
  ['%e', [5n], '%!e(int=5)'],
  ['%s', [5n], '%!s(int=5)'],
  ['%t', [5n], '%!t(int=5)'],
  ['%d', [9007199254740993n], '9007199254740993'],
  ['%d', [-9223372036854775808n], '-9223372036854775808'],
  ['%x', [-9223372036854775808n], '-8000000000000000'],
  ['%b', [-1n], '-1'],
  ['%o', [-8n], '-10'],
  ['%010d', [9223372036854775807n], '9223372036854775807'],
  ['%#O', [8n], '0o010'],
  ['%s', ['héllo'], 'héllo'],
  ['%v', ['héllo'], 'héllo'],
  ['%q', ['héllo\n\t"x"\\'], '"héllo\\n\\t\\"x\\"\\\\"'],
  ['%+q', ['héllo☺'], '"h\\u00e9llo\\u263a"'],
  ['%#q', ['a`b'], '"a`b"'],
  ['%#q', ['abc'], '`abc`'],
  ['%#q', ['a\tb'], '`a\tb`'],
  ['%#q', ['a\nb'], '"a\\nb"'],
  ['%#+q', ['é'], '`é`'],
  ['%q', ['\u0000\u0007​­'], '"\\x00\\a\\x7f\\u200b\\u00ad"'],
  ['%q', ['😀 ﻿ 󠀁 ͸'], '"😀 \\ufeff \\U000e0001 \\u0378"'],
  ['%+q', ['😀é'], '"\\U0001f600\\u00e9"'],
  ['%q', ["'"], '"\'"'],
  ['%x', ['hello'], '68656c6c6f'],
  ['%X', ['héllo'], '68C3A96C6C6F'],
  ['% x', ['hello'], '68 65 6c 6c 6f'],
  ['%# x', ['hello'], '0x68 0x65 0x6c 0x6c 0x6f'],
  ['%#x', ['hello'], '0x68656c6c6f'],
  ['%# X', ['hi'], '0X68 0X69'],
  ['%.2x', ['hello'], '6865'],
  ['%10x|', ['hi'], '      6869|'],
  ['%-10x|', ['hi'], '6869      |'],
  ['%x|', [''], '|'],
  ['%5x|', [''], '     |'],
  ['%5s|', ['ab'], '   ab|'],
  ['%-5s|', ['ab'], 'ab   |'],
  ['%.2s', ['héllo'], 'hé'],
  ['%5.1s|', ['héllo'], '    h|'],
  ['%05s', ['ab'], '000ab'],
  ['%5s|', ['日本'], '   日本|'],
  ['%d', ['x'], '%!d(string=x)'],
  ['%5d', ['x'], '%!d(string=    x)'],
  ['%c', ['x'], '%!c(string=x)'],
  ['%10q', ['a'], '       "a"'],
  ['%-10q|', ['é'], '"é"       |'],
  ['%.2q', ['héllo'], '"hé"'],
  ['%5v|', [''], '     |'],
  ['%#v', ['a`b\n'], '"a`b\\n"'],
  ['%+v', ['é'], 'é'],
  ['%t', ['true'], '%!t(string=true)'],
  ['%#d', ['x'], '%!d(string=x)'],
  ['%s', ['%d'], '%d'],
  ['%t', [true], 'true'],
  ['%v', [false], 'false'],
  ['%5t|', [true], ' true|'],
  ['%-6t|', [false], 'false |'],
  ['%d', [true], '%!d(bool=true)'],
  ['%q', [true], '%!q(bool=true)'],
  ['%#v', [true], 'true'],
  ['%v', [null], '<nil>'],
  ['%d', [null], '%!d(<nil>)'],
  ['%s', [null], '%!s(<nil>)'],
  ['%T', [null], '<nil>'],
  ['%5v|', [null], '<nil>|'],
  ['%-6v|', [null], '<nil> |'],
  ['%q', [null], '%!q(<nil>)'],
  ['%#v', [null], '<nil>'],
  ['%+v', [null], '<nil>'],
  ['%x', [null], '%!x(<nil>)'],
  ['%v %d', [undefined, undefined], '<nil> %!d(<nil>)'],
  ['%s|%q|%T|%#v', [undefined, undefined, undefined, undefined], '%!s(<nil>)|%!q(<nil>)|<nil>|<nil>'],
  ['%05v', [null], '<nil>'],
  ['%p', [null], '%!p(<nil>)'],
  [
    '%T %T %T %T %T %T',
    [1.5, 1n, 's', true, [1], { a: 1 }],
    'float64 int string bool []interface {} map[string]interface {}',
  ],
  ['%10T|', ['s'], '    string|'],
  ['%-10T|', [1n], 'int       |'],
  ['%.3T', [1.5], 'flo'],
  ['%v', [[1, 'x', null, true]], '[1 x <nil> true]'],
  ['%d', [[1, 2]], '[%!d(float64=1) %!d(float64=2)]'],
  ['%d', [[1n, 2n]], '[1 2]'],
  ['%s', [['a', 'b']], '[a b]'],
  ['%q', [['a', 'b\n']], '["a" "b\\n"]'],
  ['%x', [['ab', 'c']], '[6162 63]'],
  ['%x', [[1n, 255n]], '[1 ff]'],
  ['%X', [[1.5, 'z']], '[0X1.8P+00 7A]'],
  ['%5v|', [[1, 2]], '[    1     2]|'],
  ['%-4v|', [[1, 'ab']], '[1    ab  ]|'],
  ['%#v', [[1, 'x', null, true, 1.5, 2n]], '[]interface {}{1, "x", interface {}(nil), true, 1.5, 2}'],
  ['%+v', [[1, 'x', null]], '[1 x <nil>]'],
  ['%v', [[[1, 2], []]], '[[1 2] []]'],
  ['%v', [[]], '[]'],
  ['%#v', [[]], '[]interface {}{}'],
  ['%#v', [[[], {}]], '[]interface {}{[]interface {}{}, map[string]interface {}{}}'],
  ['%t', [[true, 1]], '[true %!t(float64=1)]'],
  ['%s', [[1, null, ['a']]], '[%!s(float64=1) <nil> [a]]'],
  ['%05d', [[1n, -2n]], '[00001 -0002]'],
  ['%+d', [[1n, -2n]], '[+1 -2]'],
  ['%.1f', [[1.25, 2.35]], '[1.2 2.4]'],
  ['%5v|', [[null, 'a']], '[<nil>     a]|'],
  ['%d', [[null]], '[<nil>]'],
  ['%#v', [['a', [null]]], '[]interface {}{"a", []interface {}{interface {}(nil)}}'],
  ['%c', [[65n, 66n]], '[A B]'],
  ['%q', [[65n, 'A']], '[\'A\' "A"]'],
  ['%06.2f', [[1.5, 'x']], '[001.50 %!f(string=00000x)]'],
  ['%v', [{ a: 'x', b: 1 }], 'map[a:x b:1]'],
  ['%v', [{ '': 6, B: 2, a: 4, aa: 5, b: 1, é: 3 }], 'map[:6 B:2 a:4 aa:5 b:1 é:3]'],
  ['%#v', [{ a: 'x', b: 1 }], 'map[string]interface {}{"a":"x", "b":1}'],
  ['%+v', [{ a: 'x', b: 1 }], 'map[a:x b:1]'],
  ['%d', [{ a: 1, b: 2n }], 'map[%!d(string=a):%!d(float64=1) %!d(string=b):2]'],
  ['%s', [{ a: 'x', b: 1.5 }], 'map[a:x b:%!s(float64=1.5)]'],
  ['%x', [{ a: 'x' }], 'map[61:78]'],
  ['%v', [{}], 'map[]'],
  ['%#v', [{}], 'map[string]interface {}{}'],
  ['%v', [{ m: { z: [1, { k: null }] }, n: null }], 'map[m:map[z:[1 map[k:<nil>]]] n:<nil>]'],
  [
    '%#v',
    [{ m: { z: [1, { k: null }] }, n: null }],
    'map[string]interface {}{"m":map[string]interface {}{"z":[]interface {}{1, map[string]interface {}{"k":interface {}(nil)}}}, "n":interface {}(nil)}',
  ],
  ['%q', [{ a: 'b' }], 'map["a":"b"]'],
  ['%5v|', [{ a: 1 }], 'map[    a:    1]|'],
  ['%#v', [{ 'a"b': 'c`d' }], 'map[string]interface {}{"a\\"b":"c`d"}'],
  ['%v', [[{ a: 1 }, {}]], '[map[a:1] map[]]'],
  ['%d', ['x', 1], '%!d(string=x)%!(EXTRA float64=1)'],
  ['%d %d', [1n], '1 %!d(MISSING)'],
  [
    '%d',
    [1n, 'x', 1.5, null, [1], { a: true }, true],
    '1%!(EXTRA string=x, float64=1.5, <nil>, []interface {}=[1], map[string]interface {}=map[a:true], bool=true)',
  ],
  ['no verbs', [1n], 'no verbs%!(EXTRA int=1)'],
  ['%', [], '%!(NOVERB)'],
  ['%-', [], '%!(NOVERB)'],
  ['%5', [], '%!(NOVERB)'],
  ['%.', [1n], '%!.(int=1)'],
  ['%*d', [5, 1n], '%!(BADWIDTH)1'],
  ['%*d', [5n, 1n], '    1'],
  ['%-*d|', [5n, 1n], '1    |'],
  ['%*d|', [-5n, 1n], '1    |'],
  ['%.*f', [2n, 3.14159], '3.14'],
  ['%.*f', [-2n, 3.14159], '%!(BADPREC)3.141590'],
  ['%.*f', [2, 3.14159], '%!(BADPREC)3.141590'],
  ['%*d', [10000000n, 1n], '%!(BADWIDTH)1'],
  ['%*d', [1.5], '%!(BADWIDTH)%!d(MISSING)'],
  ['%.*d', [1n], '%!d(MISSING)'],
  ['%*.*f|', [8n, 2n, 3.14159], '    3.14|'],
  ['%[2]d %[1]d', [1n, 2n], '2 1'],
  ['%[3]d', [1n, 2n], '%!d(BADINDEX)'],
  ['%[0]d', [1n], '%!d(BADINDEX)'],
  ['%[x]d', [1n], '%!d(BADINDEX)'],
  ['%[1]d %d', [1n, 2n], '1 2'],
  ['%[2]d %d', [1n, 2n], '2 %!d(MISSING)'],
  ['%d %d %[1]d', [1n, 2n], '1 2 1'],
  ['%[1]*d', [3n, 4n], '  4'],
  ['%[2]*[1]d|', [1n, 3n], '  1|'],
  ['%[1]*.[2]*[3]f|', [8n, 2n, 3.14159], '    3.14|'],
  ['%.[2]d', [1n, 2n], '2'],
  ['%[2]2d', [1n, 2n], '%!d(BADINDEX)'],
  ['%[2]', [1n, 2n], '%!(NOVERB)'],
  ['%[1]d %[1]v %[1]q', [65n], "65 65 'A'"],
  ['%[2]d', [1n], '%!d(BADINDEX)'],
  ['%[', [1n], '%!(NOVERB)'],
  ['%[1', [1n], '%!(NOVERB)'],
  ['%[1]d %!', [1n], '1 %!!(MISSING)'],
  ['%!', [1n], '%!!(int=1)'],
  ['%%', [], '%'],
  ['%5%', [1n], '%%!(EXTRA int=1)'],
  ['%z', [1n], '%!z(int=1)'],
  ['%ä', ['x'], '%!ä(string=x)'],
  ['%-010d|', [1n], '1         |'],
  ['%0-10d|', [1n], '1         |'],
  ['%+-5d|', [1n], '+1   |'],
  ['% +d', [1n], '+1'],
  ['%.3.2d', [1n], '%!.(int=001)2d'],
  ['%99999999d', [1n], '%!(NOVERB)%!(EXTRA int=1)'],
  ['%.99999999d', [1n], '%!(NOVERB)%!(EXTRA int=1)'],
  ['%d %s %v', [1n], '1 %!s(MISSING) %!v(MISSING)'],
  ['%w', [1n], '%!w(int=1)'],
  ['%w', [null], '%!w(<nil>)'],
  ['%p', [1n], '%!p(int=1)'],
  ['%!(x)', [1n], '%!!(int=1)(x)'],
  ['%d', [undefined, undefined], '%!d(<nil>)%!(EXTRA <nil>)'],
  ['%v%v', ['a'], 'a%!v(MISSING)'],
  ['ünïcode %s ☺ %d', ['é', 3n], 'ünïcode é ☺ 3'],
  ['%v', ['%!d(MISSING)'], '%!d(MISSING)'],
  ['%d%%', [50n], '50%'],
  ['%3c|%-3c|', [97n, 98n], '  a|b  |'],
]

const sprintCases: [Value[], string][] = [
  [[1n, 2n, 'a', 'b', 3n], '1 2ab3'],
  [[1.5, true, null], '1.5 true <nil>'],
  [['a', 1n], 'a1'],
  [[1n, 'a'], '1a'],
  [[undefined, 1n], '<nil> 1'],
  [[], ''],
  [[[1], { a: 1 }], '[1] map[a:1]'],
  [[null, null], '<nil> <nil>'],
  [['', ''], ''],
  [[1e21, -0, NaN], '1e+21 -0 NaN'],
  [[[], 'x', []], '[]x[]'],
]

const sprintlnCases: [Value[], string][] = [
  [[1n, 'a', 'b'], '1 a b\n'],
  [[], '\n'],
  [['x'], 'x\n'],
  [[null, undefined, 1.5, ['a', null]], '<nil> <nil> 1.5 [a <nil>]\n'],
]

const formatValueCases: [Value, string][] = [
  ['hello', 'hello'],
  ['', ''],
  [3, '3'],
  [1e21, '1e+21'],
  [-0, '-0'],
  [null, '<nil>'],
  [undefined, '<nil>'],
  [[1, 'a'], '[1 a]'],
  [{ a: null, b: [1] }, 'map[a:<nil> b:[1]]'],
  [true, 'true'],
  [42n, '42'],
  [0.000001, '1e-06'],
  [{ x: {} }, 'map[x:map[]]'],
  [[['a', 'b'], 2.5], '[[a b] 2.5]'],
]

describe('sprintf', () => {
  it.each(sprintfCases)('%j of %s', (format, args, want) => {
    expect(sprintf(format, args)).toBe(want)
  })
})

describe('sprint', () => {
  it.each(sprintCases)('%s', (args, want) => {
    expect(sprint(args)).toBe(want)
  })
})

describe('sprintln', () => {
  it.each(sprintlnCases)('%s', (args, want) => {
    expect(sprintln(args)).toBe(want)
  })
})

describe('formatValue', () => {
  it.each(formatValueCases)('%s', (value, want) => {
    expect(formatValue(value)).toBe(want)
  })

  it('returns a string itself', () => {
    const s = 'x'.repeat(1000)
    expect(formatValue(s)).toBe(s)
  })

  it('agrees with sprint of one operand', () => {
    for (const [value] of formatValueCases) expect(formatValue(value)).toBe(sprint([value]))
  })
})

/** x (a finite double) with `prec` decimals, rounded exactly, halfway cases to even: strconv's answer, by BigInt. */
function exactFixed(x: number, prec: number): string {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, Math.abs(x))
  const bits = view.getBigUint64(0)
  const biased = Number((bits >> 52n) & 0x7ffn)
  const mant = (bits & ((1n << 52n) - 1n)) | (biased === 0 ? 0n : 1n << 52n)
  const exp = (biased === 0 ? 1 : biased) - 1075
  // x·10^prec = mant·2^exp·10^prec as a fraction num/den.
  let num = mant * 10n ** BigInt(prec)
  let den = 1n
  if (exp >= 0) num <<= BigInt(exp)
  else den <<= BigInt(-exp)
  let q = num / den
  const r2 = (num % den) * 2n
  if (r2 > den || (r2 === den && q % 2n === 1n)) q++
  const digits = q.toString().padStart(prec + 1, '0')
  const sign = x < 0 || Object.is(x, -0) ? '-' : ''
  return sign + (prec === 0 ? digits : `${digits.slice(0, -prec)}.${digits.slice(-prec)}`)
}

describe('%.Nf', () => {
  it('rounds the exact value, halfway cases to even, for numbers of every size', () => {
    // A fixed generator: the same numbers every run.
    let seed = 12345
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    const numbers = [0, -0, 0.5, 1.5, 2.5, 8.5, 9.5, 0.125, 1.005, 1.045, 2.675, 9.96, 0.96, 99.995, 999.9999]
    numbers.push(4503599627370495.5, 2 ** 52, 123.456, 1234.5678, 1e15, 1e-7)
    for (let i = 0; i < 2000; i++) {
      const scale = 10 ** Math.floor(random() * 24 - 8)
      const x = random() * scale
      // Whole, short and halfway decimals too, where rounding the shortest form could go wrong.
      numbers.push(x, -x, Math.round(x * 100) / 100, Math.round(x * 8) / 8, (Math.floor(x * 100) + 0.5) / 100)
      numbers.push(Math.round(x * 1e4) / 1e4, (Math.floor(x * 10) + 0.95) / 10)
    }
    for (const x of numbers) {
      for (const prec of [0, 1, 2, 3, 4, 6, 10, 15])
        expect(sprintf(`%.${prec}f`, [x]), `${x} ${prec}`).toBe(exactFixed(x, prec))
    }
  })
})

describe('shortest %g', () => {
  it("prints what %G does, in lower case, for numbers of every size (%G takes strconv's general path)", () => {
    let seed = 54321
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    const numbers = [1e6, 999999.9, 1e-4, 9.99e-5, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, 123456789, 1e100]
    for (let i = 0; i < 3000; i++) numbers.push(random() * 10 ** Math.floor(random() * 80 - 40))
    for (const x of numbers) {
      for (const v of [x, -x]) {
        expect(sprintf('%g', [v]), String(v)).toBe(sprintf('%G', [v]).toLowerCase())
        expect(sprintf('%v', [v]), String(v)).toBe(sprintf('%G', [v]).toLowerCase())
      }
    }
  })
})
