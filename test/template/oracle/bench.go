package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"text/template"
	"time"
)

// clockEvery is how many renders go between two readings of the clock.
const clockEvery = 16

// benchResult is one case's figure, or why Go could not render it.
type benchResult struct {
	RendersPerSec float64 `json:"rendersPerSec,omitempty"`
	Output        string  `json:"output"`
}

// benchCases measures how fast Go renders the cases it renders without
// error, the ones whose index is shard modulo shards, as bench/suite.ts
// measures lib/template on them: each case parsed once, then rendered into a
// fresh strings.Builder over and over for budget, in rounds over all the
// cases: one untimed warm-up round, then runs timed rounds; a case's figure is
// its median run's rate. It prints
//
//	{"go": "go1.19.8", "results": {"NAME": {"rendersPerSec": 12345.6, "output": "..."}}}
func benchCases(cases []Case, extras [][]namedText, budget time.Duration, runs, shard, shards int) error {
	type bench struct {
		name   string
		t      *template.Template
		data   interface{}
		output string
		rates  []float64
	}
	var benched []*bench
	for i, c := range cases {
		if i%shards != shard {
			continue
		}
		t, err := build(c, extras[i])
		if err != nil {
			continue
		}
		data := decodeData(c)
		if output, ok := renderChecked(t, data); ok {
			benched = append(benched, &bench{name: c.Name, t: t, data: data, output: output})
		}
	}
	for _, b := range benched { // warm-up round
		measure(b.t, b.data, budget)
	}
	for r := 0; r < runs; r++ {
		for _, b := range benched {
			b.rates = append(b.rates, measure(b.t, b.data, budget))
		}
	}
	results := map[string]benchResult{}
	for _, b := range benched {
		results[b.name] = benchResult{RendersPerSec: median(b.rates), Output: b.output}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Go      string                 `json:"go"`
		Results map[string]benchResult `json:"results"`
	}{runtime.Version(), results})
}

// renderChecked executes t once; false when it fails or panics (a case Go does not render).
func renderChecked(t *template.Template, data interface{}) (out string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return render(t, data)
}

func render(t *template.Template, data interface{}) (string, bool) {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", false
	}
	return b.String(), true
}

// measure renders until the budget is spent and returns renders per second.
func measure(t *template.Template, data interface{}, budget time.Duration) float64 {
	n := 0
	start := time.Now()
	deadline := start.Add(budget)
	for {
		render(t, data)
		// The clock is read every clockEvery renders, by bench/suite.ts too: it costs as much as a small render.
		if n++; n%clockEvery != 0 {
			continue
		}
		if now := time.Now(); !now.Before(deadline) {
			return float64(n) / now.Sub(start).Seconds()
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

// parseShard reads "k/n".
func parseShard(s string) (int, int, error) {
	var k, n int
	if _, err := fmt.Sscanf(s, "%d/%d", &k, &n); err != nil || n < 1 || k < 0 || k >= n {
		return 0, 0, fmt.Errorf("-shard must be k/n with 0 <= k < n, not %q", s)
	}
	return k, n, nil
}
