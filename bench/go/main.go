// Command bench measures how fast Go's text/template renders the prompt
// templates in bench/templates, for comparison with lib/template.
//
// Usage, from the repository root (bench/run.mjs builds and runs it):
//
//	go run ./bench/go/main.go [-dir bench/templates] [-budget 300ms] [-runs 5] [-only name,name]
//
// For each NAME.tmpl with its NAME.json, it parses the template once (as
// template.New(NAME).Parse(text)) and decodes the data once (encoding/json
// into interface{}), then renders it into a fresh strings.Builder over and
// over: one untimed warm-up run, then -runs timed runs of -budget each. A
// run's rate is renders divided by the elapsed time; the result is the median
// run. It prints, on stdout:
//
//	{"go": "go1.19.8", "results": {"NAME": {"rendersPerSec": 12345.6, "output": "..."}}}
//
// A template that fails to parse or execute is reported on stderr with a
// non-zero exit status.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/template"
	"time"
)

type result struct {
	RendersPerSec float64 `json:"rendersPerSec"`
	Output        string  `json:"output"`
}

type report struct {
	Go      string            `json:"go"`
	Results map[string]result `json:"results"`
}

func main() {
	dir := flag.String("dir", "bench/templates", "directory of NAME.tmpl and NAME.json files")
	budget := flag.Duration("budget", 300*time.Millisecond, "time budget of each run")
	runs := flag.Int("runs", 5, "timed runs per template; the median is reported")
	only := flag.String("only", "", "comma-separated template names (default: all)")
	flag.Parse()

	names, err := templateNames(*dir, *only)
	if err != nil {
		fail(err)
	}
	out := report{Go: runtime.Version(), Results: map[string]result{}}
	for _, name := range names {
		r, err := benchOne(*dir, name, *budget, *runs)
		if err != nil {
			fail(fmt.Errorf("%s: %w", name, err))
		}
		out.Results[name] = r
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
}

func templateNames(dir, only string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.tmpl"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no templates in %s", dir)
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".tmpl"))
	}
	sort.Strings(names)
	if only == "" {
		return names, nil
	}
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	var picked []string
	for _, n := range strings.Split(only, ",") {
		if !known[n] {
			return nil, fmt.Errorf("no template named %q in %s", n, dir)
		}
		picked = append(picked, n)
	}
	return picked, nil
}

func benchOne(dir, name string, budget time.Duration, runs int) (result, error) {
	text, err := os.ReadFile(filepath.Join(dir, name+".tmpl"))
	if err != nil {
		return result{}, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		return result{}, err
	}
	var data interface{}
	if err := json.Unmarshal(raw, &data); err != nil {
		return result{}, fmt.Errorf("data: %w", err)
	}
	t, err := template.New(name).Parse(string(text))
	if err != nil {
		return result{}, err
	}
	output, err := render(t, data)
	if err != nil {
		return result{}, err
	}
	if _, err := measure(t, data, budget); err != nil { // warm-up
		return result{}, err
	}
	rates := make([]float64, 0, runs)
	for i := 0; i < runs; i++ {
		rate, err := measure(t, data, budget)
		if err != nil {
			return result{}, err
		}
		rates = append(rates, rate)
	}
	return result{RendersPerSec: median(rates), Output: output}, nil
}

func render(t *template.Template, data interface{}) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// measure renders until the budget is spent and returns renders per second.
func measure(t *template.Template, data interface{}, budget time.Duration) (float64, error) {
	n := 0
	start := time.Now()
	deadline := start.Add(budget)
	for {
		if _, err := render(t, data); err != nil {
			return 0, err
		}
		n++
		if now := time.Now(); !now.Before(deadline) {
			return float64(n) / now.Sub(start).Seconds(), nil
		}
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
