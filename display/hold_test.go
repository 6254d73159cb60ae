package display_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/tools"
)

// maskedClient applies frames as an editor receives them: each masked
// whole by the egress.
type maskedClient struct {
	t      *testing.T
	s      *display.Scheduler
	r      *tools.Redactor
	doc    any
	frames []string
}

func (c *maskedClient) drain() {
	c.t.Helper()
	for {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		f, err := c.s.Next(ctx)
		if err != nil {
			return
		}
		raw, err := json.Marshal(f)
		if err != nil {
			c.t.Fatal(err)
		}
		safe, err := c.r.RedactJSON(raw, nil)
		if err != nil {
			c.t.Fatal(err)
		}
		c.frames = append(c.frames, string(safe))
		var wire struct {
			Ops   []display.Op    `json:"ops"`
			State json.RawMessage `json:"state"`
		}
		if err := json.Unmarshal(safe, &wire); err != nil {
			c.t.Fatal(err)
		}
		if wire.State != nil {
			c.doc = decode(c.t, wire.State)
			continue
		}
		if c.doc, err = display.Patch(c.doc, wire.Ops); err != nil {
			c.t.Fatalf("patch: %v\n%s", err, safe)
		}
	}
}

func (c *maskedClient) text(i int, field string) string {
	items := c.doc.(map[string]any)["items"].([]any)
	s, _ := items[i].(map[string]any)[field].(string)
	return s
}

// TestSchedulerHoldsSecretSplitAcrossFrames: a secret streamed across two
// deltas, each flushed as its own frame (the first folded into the
// answer's push, or an append), never leaves in two pieces: no frame and
// no applied state holds it, and the held word goes out with the op that
// ends the item, on the item it belongs to.
func TestSchedulerHoldsSecretSplitAcrossFrames(t *testing.T) {
	const secret = "s3cr3t-value-4711"
	red := tools.NewRedactor([]string{"MY_SERVICE_API_KEY=" + secret})
	line := "the key is " + secret + " ok sk-proj-abcdefghijklmnopqrstuvwx"
	for cut := 0; cut <= len(line); cut++ {
		r := display.NewReducer(display.ReducerOptions{})
		r.Apply(harness.Event{Type: harness.EvMessageStart, Message: userMsg("q")})
		r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: userMsg("q")})
		c := &maskedClient{t: t, r: red, s: display.NewScheduler(r, display.SchedulerOptions{Clock: newFake(), Hold: red})}
		c.drain()
		r.Apply(harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")})
		for _, d := range []string{line[:cut], line[cut:]} {
			if d != "" {
				r.Apply(delta("text", d))
			}
			c.s.Flush()
			c.drain()
			for _, f := range c.frames {
				if strings.Contains(f, "s3cr3t") || strings.Contains(f, "abcdefghijklmnop") {
					t.Fatalf("cut %d: a frame holds a secret: %s", cut, f)
				}
			}
			if got := c.text(1, "text"); strings.Contains(got, "s3cr3t") || strings.Contains(got, "abcdefghijklmnop") || !strings.HasPrefix(red.Redact(line), got) {
				t.Fatalf("cut %d: applied text %q", cut, got)
			}
		}
		r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: assistantMsg(line)})
		c.s.Flush()
		c.drain()
		if got, want := c.text(1, "text"), red.Redact(line); got != want || c.text(0, "text") != "q" {
			t.Fatalf("cut %d: after the end, answer %q (want %q), user %q\n%s", cut, got, want, c.text(0, "text"), strings.Join(c.frames, "\n"))
		}
	}
}

// TestSchedulerSnapshotMidSecret: a snapshot (or a slow client's full
// state) taken while a secret is half streamed carries the whole text so
// far; the held text is not sent again, and the string's next change is
// sent whole (a set), so the client never joins the half it holds to the
// rest: no applied state holds the secret.
func TestSchedulerSnapshotMidSecret(t *testing.T) {
	const secret = "s3cr3t-value-4711"
	red := tools.NewRedactor([]string{"MY_SERVICE_API_KEY=" + secret})
	line := "one two " + secret + " end"
	for cut := len("one two "); cut < len(line)-len(" end"); cut++ {
		r := display.NewReducer(display.ReducerOptions{})
		c := &maskedClient{t: t, r: red, s: display.NewScheduler(r, display.SchedulerOptions{Clock: newFake(), Hold: red})}
		c.drain()
		r.Apply(harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")})
		r.Apply(delta("text", line[:cut]))
		c.s.Flush()
		c.drain()
		snap := c.s.Snapshot()
		raw, _ := json.Marshal(snap.State)
		safe, _ := red.RedactJSON(raw, nil)
		c.doc = decode(t, safe)
		if got := c.text(0, "text"); got != line[:cut] {
			t.Fatalf("cut %d: snapshot text %q", cut, got)
		}
		r.Apply(delta("text", line[cut:]))
		c.s.Flush()
		c.drain()
		if got := c.text(0, "text"); strings.Contains(got, secret) || !strings.HasPrefix(red.Redact(line), got) {
			t.Fatalf("cut %d: applied text %q\n%s", cut, got, strings.Join(c.frames, "\n"))
		}
		r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: assistantMsg(line)})
		c.s.Flush()
		c.drain()
		if got := c.text(0, "text"); got != red.Redact(line) {
			t.Fatalf("cut %d: final text %q", cut, got)
		}
	}
}

// TestSchedulerFinishedPushGoesWhole: an answer that starts and ends in
// one frame (its end folded into its push) is sent whole: nothing would
// ever release a tail held from it.
func TestSchedulerFinishedPushGoesWhole(t *testing.T) {
	red := tools.NewRedactor(nil)
	r := display.NewReducer(display.ReducerOptions{})
	c := &maskedClient{t: t, r: red, s: display.NewScheduler(r, display.SchedulerOptions{Clock: newFake(), Hold: red})}
	c.drain()
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")})
	r.Apply(delta("text", "exec answered"))
	r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: assistantMsg("exec answered")})
	c.s.Flush()
	c.drain()
	if got := c.text(0, "text"); got != "exec answered" {
		t.Fatalf("text %q\n%s", got, strings.Join(c.frames, "\n"))
	}
}
