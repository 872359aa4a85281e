// Command fmt_golden prints the expected outputs of the cases in fmt.test.ts,
// computed by Go's own fmt and text/template, as a JSON array on stdout:
//
//	go run test/unit/template/fmt_golden.go > /tmp/fmt-golden.json
//
// Each case gives the function (sprintf, sprint, sprintln, or value: what
// fmt.Sprint prints for one value, i.e. formatValue), the format, the
// arguments in a typed form (int, float64, string, bool, nil, missing, slice,
// map) and Go's output; fmt.test.ts holds the same rows as TS literals.
// Arguments have the types encoding/json and text/template give them: float64
// for numbers (a TS number), int for template constants (a TS bigint),
// []interface{} and map[string]interface{}; a missing map key (TS undefined)
// reaches fmt as a nil interface{}.
//
// Every case is also run through text/template ({{printf .f .a0 .a1 ...}},
// {{print ...}}, {{println ...}}) with the arguments as map entries,
// missing ones left out of the map, and the program fails if text/template
// and fmt disagree, so the expected outputs are what a template prints.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/template"
)

// missingArg stands for a missing map key: TS undefined.
type missingArg struct{}

var missing = missingArg{}

type testCase struct {
	fn     string
	format string
	args   []interface{}
}

type S = []interface{}
type M = map[string]interface{}

func f(format string, args ...interface{}) testCase { return testCase{"sprintf", format, args} }
func p(args ...interface{}) testCase                { return testCase{"sprint", "", args} }
func pln(args ...interface{}) testCase              { return testCase{"sprintln", "", args} }
func v(arg interface{}) testCase                    { return testCase{"value", "", []interface{}{arg}} }

var negZero = math.Copysign(0, -1)

var cases = []testCase{
	// float64 %v: strconv's shortest form, %e past 21 digits of exponent 6
	f("%v", 3.0), f("%v", 1.5), f("%v", negZero), f("%v", 0.0), f("%v", 1e21), f("%v", 1e20),
	f("%v", 1000000.0), f("%v", 999999.0), f("%v", 123456.0), f("%v", 1234567.0), f("%v", 0.000001),
	f("%v", 0.0001), f("%v", 0.00001), f("%v", 1e-7), f("%v", math.NaN()), f("%v", math.Inf(1)),
	f("%v", math.Inf(-1)), f("%v", 5e-324), f("%v", math.MaxFloat64), f("%v", 0.1), f("%v", 0.1+0.2),
	f("%v", 123456789.0), f("%v", -2.5e-5), f("%v", 100.0), f("%v", 1e100),
	// %e %f %g with precision: round half to even on the exact binary value
	f("%.0f", 0.5), f("%.0f", 1.5), f("%.0f", 2.5), f("%.0f", -0.5), f("%.2f", 1.005), f("%.2f", 0.125),
	f("%.2f", 0.375), f("%f", 1e-7), f("%f", 123456789.0), f("%e", 123456789.0), f("%.3e", 123456789.0),
	f("%g", 123456789.0), f("%.3g", 123456789.0), f("%.10g", 123456789.0), f("%G", 1e-10), f("%E", 1.5),
	f("%F", 2.0), f("%.20f", 0.1), f("%.30e", 0.1), f("%.0e", 2.5), f("%.0e", 25.0), f("%.1e", 0.25),
	f("%.40g", 1.0/3), f("%.17g", 0.1), f("%g", 1e21), f("%g", 1e-5), f("%.3g", 0.0001234), f("%.3g", 1000.0),
	f("%.1f", 0.05), f("%.1f", 0.25), f("%.2f", 0.006), f("%.2f", 0.0001), f("%.3f", 999.9999), f("%e", 0.0),
	f("%f", negZero), f("%g", 0.0), f("%.0g", 12.5), f("%f", 1e300), f("%.2e", 5e-324), f("%e", 1e-300),
	f("%.16e", 1.0/3), f("%.18e", 1.0/3), f("%.19e", 1.0/3), f("%g", 100000.0), f("%g", 1e6), f("%.5g", 1e5),
	// sharp, sign, space, zero and widths on floats
	f("%#g", 1.0), f("%#.3g", 1.0), f("%#v", 1.0), f("%#v", 1.5), f("%#e", 1.0), f("%#.0f", 3.0), f("%#g", 1e6),
	f("%#g", 0.0), f("%#.4g", 123456.0), f("%+.2f", 3.14159), f("% .2f", 3.14159), f("%08.3f", -3.14159),
	f("%-8.2f|", 3.14159), f("%+08.2f", 3.14159), f("%08f", math.NaN()), f("%+f", math.Inf(1)),
	f("% f", math.NaN()), f("%+v", math.NaN()), f("%08v", math.Inf(-1)), f("%5.2f|%-8v|%x", 3.14159, "héllo", "héllo"),
	f("%10.3v|", 3.14159), f("%.3v", 1234.5678), f("%+v", 1.5), f("%+g", 1.5), f("%010.2e", -1234.5),
	// hexadecimal and binary floats
	f("%x", 1.5), f("%X", 1.5), f("%x", 3.0), f("%.2x", 1.0/3), f("%.0x", 1.5), f("%#x", 1.0), f("%x", 0.0),
	f("%x", negZero), f("%x", 5e-324), f("%x", 1e300), f("%b", 1.0), f("%b", 0.0), f("%b", -5e-324), f("%.3X", 2.0/3),
	// ints (TS bigint)
	f("%d", 42), f("%+d", 42), f("% d", 42), f("%5d|", 42), f("%-5d|", 42), f("%05d", -42), f("%.3d", 7),
	f("%.0d|", 0), f("%5.0d|", 0), f("%x", 255), f("%X", 255), f("%#x", 255), f("%#X", 255), f("%o", 8),
	f("%#o", 8), f("%#o", 0), f("%O", 8), f("%b", 5), f("%#b", 5), f("%x", -255), f("%#08x", 255),
	f("%08.3d", 5), f("%+.3d", 5), f("% 05d", 5), f("%c", 65), f("%c", 0x1F600), f("%c", -1), f("%c", 0xD800),
	f("%5c|", 120), f("%q", 65), f("%q", 0x263A), f("%+q", 0x263A), f("%q", 10), f("%q", 39), f("%q", 0x110000),
	f("%#q", 0x1F600), f("%U", 0x1F600), f("%#U", 0x263A), f("%#U", 10), f("%.6U", 65), f("%-8U|", 65),
	f("%08U", 65), f("%U", -1), f("%v", 7), f("%#v", 7), f("%+v", 7), f("%e", 5), f("%s", 5), f("%t", 5),
	f("%d", 9007199254740993), f("%d", math.MinInt64), f("%x", math.MinInt64), f("%b", -1), f("%o", -8),
	f("%010d", math.MaxInt64), f("%#O", 8),
	// strings
	f("%s", "héllo"), f("%v", "héllo"), f("%q", "héllo\n\t\"x\"\\"), f("%+q", "héllo☺"), f("%#q", "a`b"),
	f("%#q", "abc"), f("%#q", "a\tb"), f("%#q", "a\nb"), f("%#+q", "é"), f("%q", "\x00\x07\x7f\u200b\u00ad"),
	f("%q", "😀 \ufeff \U000e0001 \u0378"), f("%+q", "😀\u00e9"), f("%q", "'"), f("%x", "hello"), f("%X", "héllo"),
	f("% x", "hello"), f("%# x", "hello"), f("%#x", "hello"), f("%# X", "hi"), f("%.2x", "hello"), f("%10x|", "hi"),
	f("%-10x|", "hi"), f("%x|", ""), f("%5x|", ""), f("%5s|", "ab"), f("%-5s|", "ab"), f("%.2s", "héllo"),
	f("%5.1s|", "héllo"), f("%05s", "ab"), f("%5s|", "日本"), f("%d", "x"), f("%5d", "x"), f("%c", "x"),
	f("%10q", "a"), f("%-10q|", "é"), f("%.2q", "héllo"), f("%5v|", ""), f("%#v", "a`b\n"), f("%+v", "é"),
	f("%t", "true"), f("%#d", "x"), f("%s", "%d"),
	// bool
	f("%t", true), f("%v", false), f("%5t|", true), f("%-6t|", false), f("%d", true), f("%q", true), f("%#v", true),
	// nil and missing
	f("%v", nil), f("%d", nil), f("%s", nil), f("%T", nil), f("%5v|", nil), f("%-6v|", nil), f("%q", nil), f("%#v", nil),
	f("%+v", nil), f("%x", nil), f("%v %d", missing, missing), f("%s|%q|%T|%#v", missing, missing, missing, missing),
	f("%05v", nil), f("%p", nil),
	// %T
	f("%T %T %T %T %T %T", 1.5, 1, "s", true, S{1.0}, M{"a": 1.0}), f("%10T|", "s"), f("%-10T|", 1), f("%.3T", 1.5),
	// slices
	f("%v", S{1.0, "x", nil, true}), f("%d", S{1.0, 2.0}), f("%d", S{1, 2}), f("%s", S{"a", "b"}),
	f("%q", S{"a", "b\n"}), f("%x", S{"ab", "c"}), f("%x", S{1, 255}), f("%X", S{1.5, "z"}), f("%5v|", S{1.0, 2.0}),
	f("%-4v|", S{1.0, "ab"}), f("%#v", S{1.0, "x", nil, true, 1.5, 2}), f("%+v", S{1.0, "x", nil}),
	f("%v", S{S{1.0, 2.0}, S{}}), f("%v", S{}), f("%#v", S{}), f("%#v", S{S{}, M{}}), f("%t", S{true, 1.0}),
	f("%s", S{1.0, nil, S{"a"}}), f("%05d", S{1, -2}), f("%+d", S{1, -2}), f("%.1f", S{1.25, 2.35}),
	f("%5v|", S{nil, "a"}), f("%d", S{nil}), f("%#v", S{"a", S{nil}}), f("%c", S{65, 66}), f("%q", S{65, "A"}), f("%06.2f", S{1.5, "x"}),
	// maps: keys sorted by bytes
	f("%v", M{"b": 1.0, "a": "x"}), f("%v", M{"b": 1.0, "B": 2.0, "é": 3.0, "a": 4.0, "aa": 5.0, "": 6.0}),
	f("%#v", M{"b": 1.0, "a": "x"}), f("%+v", M{"b": 1.0, "a": "x"}), f("%d", M{"a": 1.0, "b": 2}),
	f("%s", M{"a": "x", "b": 1.5}), f("%x", M{"a": "x"}), f("%v", M{}), f("%#v", M{}),
	f("%v", M{"m": M{"z": S{1.0, M{"k": nil}}}, "n": nil}), f("%#v", M{"m": M{"z": S{1.0, M{"k": nil}}}, "n": nil}),
	f("%q", M{"a": "b"}), f("%5v|", M{"a": 1.0}), f("%#v", M{"a\"b": "c`d"}), f("%v", S{M{"a": 1.0}, M{}}),
	// argument errors, indexes, * widths
	f("%d", "x", 1.0), f("%d %d", 1), f("%d", 1, "x", 1.5, nil, S{1.0}, M{"a": true}, true), f("no verbs", 1),
	f("%"), f("%-"), f("%5"), f("%.", 1), f("%*d", 5.0, 1), f("%*d", 5, 1), f("%-*d|", 5, 1), f("%*d|", -5, 1),
	f("%.*f", 2, 3.14159), f("%.*f", -2, 3.14159), f("%.*f", 2.0, 3.14159), f("%*d", 10000000, 1),
	f("%*d", 1.5), f("%.*d", 1), f("%*.*f|", 8, 2, 3.14159), f("%[2]d %[1]d", 1, 2), f("%[3]d", 1, 2),
	f("%[0]d", 1), f("%[x]d", 1), f("%[1]d %d", 1, 2), f("%[2]d %d", 1, 2), f("%d %d %[1]d", 1, 2),
	f("%[1]*d", 3, 4), f("%[2]*[1]d|", 1, 3), f("%[1]*.[2]*[3]f|", 8, 2, 3.14159), f("%.[2]d", 1, 2),
	f("%[2]2d", 1, 2), f("%[2]", 1, 2), f("%[1]d %[1]v %[1]q", 65), f("%[2]d", 1), f("%[", 1), f("%[1", 1),
	f("%[1]d %!", 1), f("%!", 1), f("%%"), f("%5%", 1), f("%z", 1), f("%ä", "x"), f("%-010d|", 1), f("%0-10d|", 1),
	f("%+-5d|", 1), f("% +d", 1), f("%.3.2d", 1), f("%99999999d", 1), f("%.99999999d", 1), f("%d %s %v", 1),
	f("%w", 1), f("%w", nil), f("%p", 1), f("%!(x)", 1), f("%d", missing, missing), f("%v%v", "a"),
	f("ünïcode %s ☺ %d", "é", 3), f("%v", "%!d(MISSING)"), f("%d%%", 50), f("%3c|%-3c|", 97, 98),
	// Sprint: spaces between operands when neither is a string
	p(1, 2, "a", "b", 3), p(1.5, true, nil), p("a", 1), p(1, "a"), p(missing, 1), p(), p(S{1.0}, M{"a": 1.0}),
	p(nil, nil), p("", ""), p(1e21, negZero, math.NaN()), p(S{}, "x", S{}),
	// Sprintln: always spaces, a newline at the end
	pln(1, "a", "b"), pln(), pln("x"), pln(nil, missing, 1.5, S{"a", nil}),
	// formatValue: fmt.Sprint of one value
	v("hello"), v(""), v(3.0), v(1e21), v(negZero), v(nil), v(missing), v(S{1.0, "a"}), v(M{"b": S{1.0}, "a": nil}),
	v(true), v(42), v(0.000001), v(M{"x": M{}}), v(S{S{"a", "b"}, 2.5}),
}

func main() {
	out := make([]map[string]interface{}, 0, len(cases))
	failed := false
	for _, c := range cases {
		args := make([]interface{}, len(c.args))
		data := map[string]interface{}{"f": c.format}
		var names []string
		for i, a := range c.args {
			name := fmt.Sprintf(".a%d", i)
			names = append(names, name)
			if a != missing {
				args[i] = a
				data[name[1:]] = a
			}
		}
		var want, tmpl string
		switch c.fn {
		case "sprintf":
			want = fmt.Sprintf(c.format, args...)
			tmpl = "{{printf .f " + strings.Join(names, " ") + "}}"
		case "sprint":
			want = fmt.Sprint(args...)
			tmpl = "{{print " + strings.Join(names, " ") + "}}"
		case "sprintln":
			want = fmt.Sprintln(args...)
			tmpl = "{{println " + strings.Join(names, " ") + "}}"
		case "value":
			want = fmt.Sprint(args[0])
			tmpl = "{{print .a0}}"
		}
		var b strings.Builder
		if err := template.Must(template.New("").Parse(tmpl)).Execute(&b, data); err != nil {
			panic(err)
		}
		if b.String() != want {
			fmt.Fprintf(os.Stderr, "text/template and fmt disagree on %s %q %v: %q vs %q\n", c.fn, c.format, args, b.String(), want)
			failed = true
		}
		typed := make([]interface{}, len(c.args))
		for i, a := range c.args {
			typed[i] = encode(a)
		}
		out = append(out, map[string]interface{}{"fn": c.fn, "format": c.format, "args": typed, "want": want})
	}
	if failed {
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}

// encode gives an argument's Go type along with its value, since JSON alone
// cannot tell int from float64 nor hold NaN, infinities and -0.
func encode(a interface{}) interface{} {
	switch x := a.(type) {
	case missingArg:
		return map[string]interface{}{"missing": true}
	case nil:
		return nil
	case bool, string:
		return x
	case int:
		return map[string]interface{}{"int": strconv.Itoa(x)}
	case float64:
		return map[string]interface{}{"float64": strconv.FormatFloat(x, 'g', -1, 64)}
	case []interface{}:
		l := make([]interface{}, len(x))
		for i, e := range x {
			l[i] = encode(e)
		}
		return map[string]interface{}{"slice": l}
	case map[string]interface{}:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := make([][]interface{}, len(keys))
		for i, k := range keys {
			m[i] = []interface{}{k, encode(x[k])}
		}
		return map[string]interface{}{"map": m}
	}
	panic(fmt.Sprintf("unsupported argument type %T", a))
}
