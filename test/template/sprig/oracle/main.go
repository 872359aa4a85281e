// Command oracle renders the Sprig helpers' differential corpus with Go's
// text/template and the real Sprig (Debian's golang-github-masterminds-sprig-dev),
// and records what Go does, so that lib/template's helpers can be checked
// against it. Built in GOPATH mode from Debian's sources: see ../regenerate.sh.
//
//	oracle -cases ../cases.json -out ../golden.json -sprig 3.2.3
//
// Every case is built the same way:
//
//	t := template.New("tpl").Option("missingkey=" + missingkey) // Option only when set
//	t.Funcs(helpers)                                             // Sprig's, only the names below, and fence
//	t.Parse(template)
//	t.Execute(&buf, data)                                        // data decoded by encoding/json into interface{}
//
// Results are {name, output} or {name, phase, error, output} as in
// test/template/golden.json, with outputBase64 when the output is not valid UTF-8.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"text/template"
	"unicode/utf8"

	sprig "github.com/Masterminds/sprig"
)

// names are the helpers lib/template has: Sprig's, by these names, and fence.
var names = []string{
	"contains", "default", "hasPrefix", "hasSuffix", "indent", "join", "lower", "nindent",
	"quote", "replace", "toJson", "toPrettyJson", "trim", "trunc", "upper",
}

// fence is lib/template's own: a Markdown code block whose fence is at least
// three backticks and longer than any run of backticks in text.
func fence(lang, text string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	n := 3
	if longest+1 > n {
		n = longest + 1
	}
	bar := strings.Repeat("`", n)
	return bar + lang + "\n" + text + "\n" + bar
}

func helpers() template.FuncMap {
	all := sprig.TxtFuncMap()
	funcs := template.FuncMap{"fence": fence}
	for _, name := range names {
		f, ok := all[name]
		if !ok {
			panic("sprig has no " + name)
		}
		funcs[name] = f
	}
	return funcs
}

// Case is one entry of cases.json; Ours is what lib/template does instead, where it differs on purpose.
type Case struct {
	Name     string          `json:"name"`
	Template string          `json:"template"`
	Data     json.RawMessage `json:"data"`
	Options  *struct {
		MissingKey string `json:"missingkey"`
	} `json:"options"`
	Note string          `json:"note"`
	Ours json.RawMessage `json:"ours"`
}

type Result struct {
	Name         string `json:"name"`
	Phase        string `json:"phase,omitempty"`
	Error        string `json:"error,omitempty"`
	Output       string `json:"output"`
	OutputBase64 string `json:"outputBase64,omitempty"`
}

type Golden struct {
	Go      string   `json:"go"`
	Sprig   string   `json:"sprig"`
	Helpers []string `json:"helpers"`
	Results []Result `json:"results"`
}

func run(c Case) Result {
	r := Result{Name: c.Name}
	t := template.New("tpl")
	if c.Options != nil && c.Options.MissingKey != "" {
		t.Option("missingkey=" + c.Options.MissingKey)
	}
	if _, err := t.Funcs(helpers()).Parse(c.Template); err != nil {
		r.Phase, r.Error = "parse", err.Error()
		return r
	}
	var data interface{}
	if len(c.Data) > 0 {
		if err := json.Unmarshal(c.Data, &data); err != nil {
			panic(fmt.Sprintf("%s: data: %v", c.Name, err))
		}
	}
	var out bytes.Buffer
	if err := t.Execute(&out, data); err != nil {
		r.Phase, r.Error = "exec", err.Error()
	}
	r.Output = out.String()
	if !utf8.Valid(out.Bytes()) {
		r.OutputBase64 = base64.StdEncoding.EncodeToString(out.Bytes())
	}
	return r
}

func main() {
	casesPath := flag.String("cases", "cases.json", "the corpus")
	outPath := flag.String("out", "golden.json", "where to write Go's results")
	sprigVersion := flag.String("sprig", "", "the Sprig version built against, recorded in the results")
	flag.Parse()
	text, err := os.ReadFile(*casesPath)
	if err != nil {
		panic(err)
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var cases []Case
	if err := dec.Decode(&cases); err != nil {
		panic(err)
	}
	seen := map[string]bool{}
	golden := Golden{Go: runtime.Version(), Sprig: *sprigVersion, Helpers: append([]string{"fence"}, names...)}
	sort.Strings(golden.Helpers)
	for _, c := range cases {
		if seen[c.Name] {
			panic("duplicate case " + c.Name)
		}
		seen[c.Name] = true
		golden.Results = append(golden.Results, run(c))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(golden); err != nil {
		panic(err)
	}
	if err := os.WriteFile(*outPath, buf.Bytes(), 0o644); err != nil {
		panic(err)
	}
}
