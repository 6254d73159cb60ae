package compaction

import (
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

func TestCalibrateScalesEstimates(t *testing.T) {
	e := NewEstimator("unknown-family") // chars/4
	m := llm.UserText(strings.Repeat("1234\n", 4000), 1)
	before := e.Message(&m)
	req := llm.Request{Messages: []llm.Message{m}}
	raw := e.RequestTokens(&req)
	e.Calibrate(raw*3, raw) // the provider counts 3x more
	if got := e.Message(&m); got < 3*before-1 || got > 3*before+1 {
		t.Fatalf("calibrated estimate %d, want about %d", got, 3*before)
	}
	if e.RequestTokens(&req) != raw {
		t.Fatal("RequestTokens must stay raw")
	}
	// A fall is followed slowly, a rise at once; small requests do not count.
	e.Calibrate(raw, raw)
	if s := e.Scale(); s <= 1 || s >= 3 {
		t.Fatalf("scale after a lower report: %v", s)
	}
	e.Calibrate(100000, 100)
	if s := e.Scale(); s >= 3 {
		t.Fatalf("a tiny request calibrated: %v", s)
	}
	e.Calibrate(raw*100, raw)
	if e.Scale() != maxScale {
		t.Fatalf("scale not bounded: %v", e.Scale())
	}
	var nilE *Estimator
	nilE.Calibrate(10, 10)
	if nilE.Scale() != 1 {
		t.Fatal("nil estimator")
	}
}
