package acp

import (
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
)

func TestParseGoalCommand(t *testing.T) {
	cases := []struct {
		in   string
		want harness.GoalSpec
		err  bool
	}{
		{in: `make the tests pass --check "go test ./..." --max-turns 5`, want: harness.GoalSpec{Text: "make the tests pass", Check: "go test ./...", MaxTurns: 5}},
		{in: `--check='make lint' fix "--all" lint --max-cost 2.5`, want: harness.GoalSpec{Text: "fix --all lint", Check: "make lint", MaxCostUSD: 2.5}},
		{in: `--max-turns 0 x`, err: true},
		{in: `x --max-turns`, err: true},
		{in: `x --check "unterminated`, err: true},
		{in: `--check true`, err: true},
		{in: `x --bogus 1`, err: true},
	}
	for _, c := range cases {
		got, err := ParseGoalCommand(c.in)
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("%q: %+v, %v; want %+v (error %v)", c.in, got, err, c.want, c.err)
		}
	}
}

func FuzzParseGoalCommand(f *testing.F) {
	f.Add(`make it pass --check "go test ./..." --max-turns 5`)
	f.Add(`'--check' "x" --max-cost=1e3`)
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseGoalCommand(s)
		if err == nil && (spec.Text == "" || spec.MaxTurns < 0 || spec.MaxCostUSD < 0) {
			t.Fatalf("%q parsed to %+v", s, spec)
		}
	})
}
