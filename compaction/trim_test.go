package compaction

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// toolOutput returns about n tokens (chars/4) of line-structured output.
func toolOutput(turn, n int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < 4*n; i++ {
		fmt.Fprintf(&sb, "turn %03d line %04d: some build output here\n", turn, i)
	}
	return sb.String()[:4*n]
}

// toolTurn appends one tool-heavy turn: a prompt, a bash call, about
// outTokens of output, and an answer whose usage reports the context size.
func toolTurn(b *branch, turn, outTokens int, usage int) {
	b.user(fmt.Sprintf("step %d: run the build and fix what fails", turn))
	b.assistant("", call{"bash", fmt.Sprintf(`{"command":"make step%d"}`, turn)})
	b.toolResult("bash", toolOutput(turn, outTokens))
	if turn%2 == 0 {
		b.lastMsg().Details = json.RawMessage(fmt.Sprintf(`{"fullOutputPath":"/tmp/pi-bash-%d.log"}`, turn))
	}
	b.assistant(fmt.Sprintf("Step %d done; the build passes.", turn))
	b.lastMsg().Usage = llm.Usage{Input: usage, Output: 20}
}

// estimateAll counts a context by estimating every message (no usage).
func estimateAll(items []Item, e *Estimator) int {
	n := 0
	for _, m := range ContextMessages(items) {
		n += e.Message(&m)
	}
	return n
}

func TestTrimDefersCompactionIn40kWindow(t *testing.T) {
	const window = 40960
	s := BudgetFor(window, nil)
	var b branch
	for turn := 1; turn <= 12; turn++ {
		toolTurn(&b, turn, 3000, 0)
	}
	e := NewEstimator("")
	before := estimateAll(b.items, e)
	b.lastMsg().Usage = llm.Usage{Input: before - 20, Output: 20} // the provider agrees with the estimate
	if !ShouldCompact(before, window, s) {
		t.Fatalf("setup: %d tokens not over the threshold %d", before, s.Threshold(window))
	}
	d := Plan(b.items, window, s, e, 0)
	if d.Action != ActionTrim {
		t.Fatalf("action %s (tokens %d, saved %d), want trim", d.Action, d.Tokens, d.Saved)
	}
	after := estimateAll(d.Items, e)
	if ShouldCompact(after, window, s) || after > d.Threshold {
		t.Fatalf("after trimming %d tokens, threshold %d", after, d.Threshold)
	}
	if diff := before - after; diff < d.Saved-len(d.Trims) || diff > d.Saved+len(d.Trims) {
		t.Errorf("saved %d reported, %d measured", d.Saved, diff)
	}
	t.Logf("40k window: %d tokens -> %d after %d trims (threshold %d), no summary", before, after, len(d.Trims), d.Threshold)

	// Nothing in the kept tail changed; everything trimmed lies before it.
	p, err := Prepare(b.items, s, e)
	if err != nil {
		t.Fatal(err)
	}
	firstKept := ids(b.items)[p.FirstKeptEntryID]
	pos := ids(b.items)
	for i := firstKept; i < len(b.items); i++ {
		if d.Items[i].Message != b.items[i].Message {
			t.Fatalf("kept item %d was modified", i)
		}
	}
	for _, tr := range d.Trims {
		i := pos[tr.EntryID]
		if i >= firstKept {
			t.Fatalf("trimmed %s inside the kept tail", tr.EntryID)
		}
		text := d.Items[i].Message.Text()
		orig := b.items[i].Message.Text()
		if !strings.HasPrefix(text, orig[:tr.HeadBytes]) || !strings.HasSuffix(text, orig[len(orig)-tr.TailBytes:]) {
			t.Fatalf("head/tail not kept for %s", tr.EntryID)
		}
		if tr.HeadBytes+tr.TailBytes > DefaultTrimChars || tr.HeadBytes < DefaultTrimChars/4 || tr.TailBytes < DefaultTrimChars/4 {
			t.Errorf("head %d tail %d", tr.HeadBytes, tr.TailBytes)
		}
		if tr.FullOutputPath != "" {
			if !strings.Contains(text, "trimmed by pi-lsp to save context. Full output: "+tr.FullOutputPath) {
				t.Errorf("marker without path: %q", text[tr.HeadBytes:len(text)-tr.TailBytes])
			}
		} else if !strings.Contains(text, "trimmed by pi-lsp to save context; run the tool again if you need them") {
			t.Errorf("marker: %q", text[tr.HeadBytes:len(text)-tr.TailBytes])
		}
		if b.items[i].Message.Text() != orig || len(orig) != tr.OriginalBytes {
			t.Fatal("input items were modified")
		}
	}

	// A reload re-applies the recorded trims to the same messages.
	raw, err := json.Marshal(d.Trims)
	if err != nil {
		t.Fatal(err)
	}
	var loaded []Trim
	if err := json.Unmarshal(raw, &loaded); err != nil {
		t.Fatal(err)
	}
	re := ApplyTrims(b.items, loaded)
	for i := range re {
		if !reflect.DeepEqual(re[i].Message, d.Items[i].Message) {
			t.Fatalf("ApplyTrims differs at %d", i)
		}
	}
	// Trimming again trims nothing more.
	if _, saved, again := TrimToolOutputs(d.Items, s, e, 0); len(again) != 0 || saved != 0 {
		t.Errorf("second pass trimmed %d more", len(again))
	}
}

func TestApplyTrimsIgnoresMismatches(t *testing.T) {
	var b branch
	b.user("u")
	id := b.toolResult("bash", toolOutput(1, 2000))
	good := Trim{EntryID: id, OriginalBytes: 8000, HeadBytes: 10, TailBytes: 10}
	for _, tr := range []Trim{
		{EntryID: "missing", OriginalBytes: 8000, HeadBytes: 10, TailBytes: 10},
		{EntryID: id, OriginalBytes: 7999, HeadBytes: 10, TailBytes: 10},
		{EntryID: id, OriginalBytes: 8000, HeadBytes: 9000, TailBytes: 10},
		{EntryID: "e00", OriginalBytes: 1, HeadBytes: 0, TailBytes: 0},
	} {
		out := ApplyTrims(b.items, []Trim{tr})
		if out[1].Message != b.items[1].Message || out[0].Message != b.items[0].Message {
			t.Errorf("%+v applied", tr)
		}
	}
	out := ApplyTrims(b.items, []Trim{good})
	if got := out[1].Message.Text(); len(got) > 300 || !strings.Contains(got, "7980 characters") {
		t.Errorf("good trim: %q", got)
	}
}

func TestPlanActions(t *testing.T) {
	const window = 40960
	s := BudgetFor(window, nil)
	e := NewEstimator("")

	var small branch
	toolTurn(&small, 1, 3000, 3500)
	if d := Plan(small.items, window, s, e, 0); d.Action != ActionNone || d.Tokens != 3520 {
		t.Errorf("small: %s %d", d.Action, d.Tokens)
	}

	// Nothing old to trim (outputs already small): compaction.
	var many branch
	for turn := 1; turn <= 80; turn++ {
		toolTurn(&many, turn, 500, 0)
	}
	many.lastMsg().Usage = llm.Usage{Input: estimateAll(many.items, e)}
	if d := Plan(many.items, window, s, e, 0); d.Action != ActionCompact {
		t.Errorf("many small turns: %s", d.Action)
	}

	// The newest tool output alone exceeds the window: too small, not a loop.
	var huge branch
	toolTurn(&huge, 1, 100, 500)
	huge.user("read the log")
	huge.assistant("", call{"read", `{"path":"big.log"}`})
	huge.toolResult("read", toolOutput(2, 38000))
	d := Plan(huge.items, window, s, e, 0)
	if d.Action != ActionTooSmall || d.Err == nil || d.Irreducible < 38000 {
		t.Errorf("huge: %s %v irreducible %d", d.Action, d.Err, d.Irreducible)
	}

	// Disabled: no advice.
	off := s
	off.Enabled = false
	if d := Plan(many.items, window, off, e, 0); d.Action != ActionNone {
		t.Errorf("disabled: %s", d.Action)
	}
}

// One turn whose tool outputs alone are over a 40k window: nothing can be
// compacted, TrimTail cuts the turn's own outputs until it fits.
func TestTrimTailFitsAnOversizedLastTurn(t *testing.T) {
	const window = 40960
	s := BudgetFor(window, nil)
	var b branch
	b.user("run the three builds")
	for k := 1; k <= 3; k++ {
		b.assistant("", call{"bash", fmt.Sprintf(`{"command":"make part%d"}`, k)})
		b.toolResult("bash", toolOutput(k, 18000))
	}
	e := NewEstimator("")
	before := estimateAll(b.items, e)
	if !ShouldCompact(before, window, s) {
		t.Fatalf("setup: %d tokens not over the threshold", before)
	}
	if _, _, trims := TrimToolOutputs(b.items, s, e, 0); len(trims) == len(b.items) {
		t.Fatal("setup: the plain trim reached the kept tail")
	}
	trimmed, saved, trims, size, ok := TrimTail(b.items, window, s, e, 0)
	if !ok || len(trims) != 3 || size != DefaultTrimChars {
		t.Fatalf("ok %v, %d trims at %d chars", ok, len(trims), size)
	}
	if after := estimateAll(trimmed, e); after > s.Threshold(window) || before-after < saved/2 {
		t.Fatalf("after the trim %d tokens (threshold %d, saved %d)", after, s.Threshold(window), saved)
	}
	if estimateAll(b.items, e) != before {
		t.Fatal("the input was modified")
	}
	// A window too small for even the smallest cut says so.
	if _, _, _, _, ok := TrimTail(b.items, 600, BudgetFor(600, nil), e, 0); ok {
		t.Fatal("fit a 600-token window")
	}
}
