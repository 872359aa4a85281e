// Command oracle renders the differential test corpus with Go's real
// text/template and records what Go does, so that the TypeScript engine can be
// checked against it.
//
// Usage, from the repository root:
//
//	go run ./test/template/oracle/main.go [-cases test/template/cases.json] [-out test/template/golden.json]
//	go run ./test/template/oracle/main.go -compare old.json new.json
//	go run ./test/template/oracle -bench [-budget 10ms] [-runs 3] [-shard 0/8]
//
// For every case of cases.json it builds a template set the same way:
//
//	t := template.New("tpl")                      // the main template is always named "tpl"
//	t.Option("missingkey=" + options.missingkey)  // only when the case sets it
//	t.Funcs(testFuncs)
//	t.New(name).Parse(text)                       // each of "templates", in document order
//	t.Parse(template)                             // the case's main template, last
//	t.Execute(&buf, data)                         // data decoded by encoding/json into interface{}
//
// and records {name, output} on success, or {name, phase, error, output} on
// failure, where phase is "parse" or "exec" and output is whatever Execute
// wrote before the error ("" for a parse error). When the output is not
// valid UTF-8 (slicing a string inside a rune, for instance), JSON cannot
// carry it exactly: "output" then holds encoding/json's rendering (each
// invalid byte becomes U+FFFD) and "outputBase64" holds the exact bytes.
//
// The test functions, which the TypeScript side registers with the same
// behaviour. Their Go signatures matter: text/template converts arguments
// to the parameter types and reports an error when it cannot.
//
//	add(a, b float64) float64
//	    a + b. Constants written in the template (1, 0x10, 'a', 1.5) are
//	    converted to float64; values that already have a type are not: an int
//	    from len, from range's index or piped from a constant (2 | add 1) is
//	    "wrong type for value; expected float64; got int", and so is a
//	    string or bool.
//	echo(x interface{}) interface{}
//	    returns x unchanged.
//	join(sep string, xs ...interface{}) string
//	    fmt.Sprint of each x, joined with sep.
//	fail(msg string) (interface{}, error)
//	    always fails with errors.New(msg).
//	count(n int) []interface{}
//	    the float64 values 0, 1, ..., n-1 (float64, like JSON numbers);
//	    an empty, non-nil slice when n <= 0. A JSON number (float64) is not
//	    accepted for the int parameter: only int values and integer constants.
//	dict(kv ...interface{}) (map[string]interface{}, error)
//	    a map from alternating keys and values; the error is
//	    "dict: odd number of arguments: N" or
//	    "dict: key at position I is T, not string" (I counts from 0, T is %T).
//	upper(s string) string
//	    strings.ToUpper(s).
//	zero() interface{}
//	    returns a nil interface{}.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"
)

var testFuncs = template.FuncMap{
	"add":   add,
	"echo":  echo,
	"join":  join,
	"fail":  fail,
	"count": count,
	"dict":  dict,
	"upper": upper,
	"zero":  zero,
}

func add(a, b float64) float64 { return a + b }

func echo(x interface{}) interface{} { return x }

func join(sep string, xs ...interface{}) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, sep)
}

func fail(msg string) (interface{}, error) { return nil, errors.New(msg) }

func count(n int) []interface{} {
	if n <= 0 {
		return []interface{}{}
	}
	xs := make([]interface{}, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	return xs
}

func dict(kv ...interface{}) (map[string]interface{}, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict: odd number of arguments: %d", len(kv))
	}
	m := make(map[string]interface{}, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key at position %d is %T, not string", i, kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

func upper(s string) string { return strings.ToUpper(s) }

func zero() interface{} { return nil }

// Case is one entry of cases.json.
type Case struct {
	Name      string          `json:"name"`
	Template  *string         `json:"template"`
	Data      json.RawMessage `json:"data"`
	Options   *Options        `json:"options"`
	Templates json.RawMessage `json:"templates"`
	Note      string          `json:"note"`
}

type Options struct {
	MissingKey string `json:"missingkey"`
}

type namedText struct{ name, text string }

// Result is one entry of golden.json's results.
type Result struct {
	Name         string `json:"name"`
	Phase        string `json:"phase,omitempty"`
	Error        string `json:"error,omitempty"`
	Output       string `json:"output"`
	OutputBase64 string `json:"outputBase64,omitempty"`
}

type Golden struct {
	Go      string   `json:"go"`
	Results []Result `json:"results"`
}

// arrayIndex matches names that JavaScript would order before the others in
// an object, which would make the parse order differ between Go and JS.
var arrayIndex = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// orderedTemplates decodes the "templates" object keeping its document order.
func orderedTemplates(raw json.RawMessage) ([]namedText, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("templates must be an object")
	}
	var out []namedText
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := tok.(string)
		var text string
		if err := dec.Decode(&text); err != nil {
			return nil, fmt.Errorf("template %q: %v", name, err)
		}
		if seen[name] {
			return nil, fmt.Errorf("template %q given twice", name)
		}
		if arrayIndex.MatchString(name) {
			return nil, fmt.Errorf("template name %q looks like an array index; JavaScript would reorder it", name)
		}
		if name == "tpl" {
			return nil, fmt.Errorf(`template name "tpl" is the main template's`)
		}
		seen[name] = true
		out = append(out, namedText{name, text})
	}
	return out, nil
}

// build parses a case's template set as the package comment says.
func build(c Case, extras []namedText) (*template.Template, error) {
	t := template.New("tpl")
	if c.Options != nil && c.Options.MissingKey != "" {
		t.Option("missingkey=" + c.Options.MissingKey)
	}
	t.Funcs(testFuncs)
	for _, nt := range extras {
		if _, err := t.New(nt.name).Parse(nt.text); err != nil {
			return nil, err
		}
	}
	return t.Parse(*c.Template)
}

func decodeData(c Case) interface{} {
	var data interface{}
	if len(c.Data) > 0 {
		_ = json.Unmarshal(c.Data, &data) // checked by loadCases
	}
	return data
}

func run(c Case, extras []namedText) (res Result) {
	res.Name = c.Name
	var buf bytes.Buffer
	phase := "parse"
	defer func() {
		if p := recover(); p != nil {
			res.Phase = phase
			res.Error = fmt.Sprintf("panic: %v", p)
			res.Output = buf.String()
		}
		if !utf8.ValidString(res.Output) {
			res.OutputBase64 = base64.StdEncoding.EncodeToString([]byte(res.Output))
		}
	}()
	t, err := build(c, extras)
	if err != nil {
		res.Phase, res.Error = "parse", err.Error()
		return res
	}
	data := decodeData(c)
	phase = "exec"
	err = t.Execute(&buf, data)
	res.Output = buf.String()
	if err != nil {
		res.Phase, res.Error = "exec", err.Error()
	}
	return res
}

func loadCases(path string) ([]Case, [][]namedText, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var rawCases []json.RawMessage
	if err := json.Unmarshal(raw, &rawCases); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	cases := make([]Case, len(rawCases))
	extras := make([][]namedText, len(rawCases))
	seen := map[string]bool{}
	for i, rc := range rawCases {
		dec := json.NewDecoder(bytes.NewReader(rc))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cases[i]); err != nil {
			return nil, nil, fmt.Errorf("case %d: %v", i, err)
		}
		c := cases[i]
		switch {
		case c.Name == "":
			return nil, nil, fmt.Errorf("case %d has no name", i)
		case seen[c.Name]:
			return nil, nil, fmt.Errorf("case %d: duplicate name %q", i, c.Name)
		case c.Template == nil:
			return nil, nil, fmt.Errorf("case %q has no template", c.Name)
		}
		seen[c.Name] = true
		if len(c.Data) > 0 {
			var data interface{}
			if err := json.Unmarshal(c.Data, &data); err != nil {
				return nil, nil, fmt.Errorf("case %q: data: %v", c.Name, err)
			}
		}
		if c.Options != nil {
			switch c.Options.MissingKey {
			case "", "default", "zero", "error":
			default:
				return nil, nil, fmt.Errorf("case %q: bad missingkey %q", c.Name, c.Options.MissingKey)
			}
		}
		if extras[i], err = orderedTemplates(c.Templates); err != nil {
			return nil, nil, fmt.Errorf("case %q: %v", c.Name, err)
		}
	}
	return cases, extras, nil
}

func encode(w io.Writer, g Golden) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(g)
}

// compare reports the cases whose results differ between two golden files,
// ignoring formatting. It returns false when they differ.
func compare(oldPath, newPath string) (bool, error) {
	read := func(path string) (Golden, error) {
		var g Golden
		raw, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(raw, &g)
		}
		if err != nil {
			return g, fmt.Errorf("%s: %v", path, err)
		}
		return g, nil
	}
	a, err := read(oldPath)
	if err != nil {
		return false, err
	}
	b, err := read(newPath)
	if err != nil {
		return false, err
	}
	if a.Go != b.Go {
		fmt.Fprintf(os.Stderr, "note: %s was made by %s, this is %s\n", oldPath, a.Go, b.Go)
	}
	same := true
	byName := map[string]Result{}
	for _, r := range a.Results {
		byName[r.Name] = r
	}
	for _, r := range b.Results {
		old, ok := byName[r.Name]
		if !ok {
			fmt.Fprintf(os.Stderr, "%s: not in %s\n", r.Name, oldPath)
			same = false
			continue
		}
		if !reflect.DeepEqual(old, r) {
			was, _ := json.Marshal(old)
			now, _ := json.Marshal(r)
			fmt.Fprintf(os.Stderr, "%s:\n  committed: %s\n  now:       %s\n", r.Name, was, now)
			same = false
		}
		delete(byName, r.Name)
	}
	for _, r := range a.Results {
		if _, ok := byName[r.Name]; ok {
			fmt.Fprintf(os.Stderr, "%s: no longer in the corpus\n", r.Name)
			same = false
		}
	}
	if same && len(a.Results) == len(b.Results) {
		for i := range a.Results {
			if a.Results[i].Name != b.Results[i].Name {
				fmt.Fprintf(os.Stderr, "results are in a different order from %s (at %d)\n", oldPath, i)
				return false, nil
			}
		}
	}
	return same, nil
}

func main() {
	casesPath := flag.String("cases", "test/template/cases.json", "the corpus")
	outPath := flag.String("out", "test/template/golden.json", "where to write the results")
	compareMode := flag.Bool("compare", false, "compare two golden files given as arguments instead")
	benchMode := flag.Bool("bench", false, "measure the renders per second of the cases Go renders instead (bench.go)")
	budget := flag.Duration("budget", 10*time.Millisecond, "with -bench: time budget of each run")
	runs := flag.Int("runs", 3, "with -bench: timed runs per case; the median is reported")
	shard := flag.String("shard", "0/1", "with -bench: k/n, the cases whose index is k modulo n")
	flag.Parse()

	if *compareMode {
		if flag.NArg() != 2 {
			fmt.Fprintln(os.Stderr, "usage: oracle -compare committed.json regenerated.json")
			os.Exit(2)
		}
		same, err := compare(flag.Arg(0), flag.Arg(1))
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		if !same {
			os.Exit(1)
		}
		return
	}

	cases, extras, err := loadCases(*casesPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(2)
	}
	if *benchMode {
		k, n, err := parseShard(*shard)
		if err == nil {
			err = benchCases(cases, extras, *budget, *runs, k, n)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		return
	}
	g := Golden{Go: runtime.Version(), Results: make([]Result, len(cases))}
	var ok, parseErrs, execErrs int
	for i, c := range cases {
		r := run(c, extras[i])
		g.Results[i] = r
		switch r.Phase {
		case "":
			ok++
		case "parse":
			parseErrs++
		case "exec":
			execErrs++
		}
	}
	var buf bytes.Buffer
	if err := encode(&buf, g); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(2)
	}
	if err := os.WriteFile(*outPath, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(2)
	}
	fmt.Printf("oracle (%s): %d cases: %d rendered, %d parse errors, %d exec errors -> %s\n",
		g.Go, len(cases), ok, parseErrs, execErrs, *outPath)
}
