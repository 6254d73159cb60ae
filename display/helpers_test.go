package display_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/display/displaytest"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func ev(t harness.EventType) harness.Event { return harness.Event{Type: t} }

func userMsg(text string) *llm.Message {
	m := llm.UserText(text, 1)
	return &m
}

func assistantMsg(text string, calls ...llm.ContentBlock) *llm.Message {
	m := llm.Message{Role: llm.RoleAssistant}
	if text != "" {
		m.Content = append(m.Content, llm.TextBlock(text))
	}
	m.Content = append(m.Content, calls...)
	return &m
}

func toolCall(id, name, args string) llm.ContentBlock {
	return llm.ContentBlock{Type: llm.BlockToolCall, ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func delta(kind, s string) harness.Event {
	return harness.Event{Type: harness.EvMessageUpdate, DeltaKind: kind, Delta: s}
}

// client is a test client of one scheduler: it applies every frame to its
// own JSON document, checking versions, as an editor does.
type client struct {
	t       *testing.T
	s       *display.Scheduler
	doc     any
	version int64
	frames  []display.Frame
}

func newClient(t *testing.T, r *display.Reducer, clock display.Clock) *client {
	t.Helper()
	c := &client{t: t, s: display.NewScheduler(r, display.SchedulerOptions{Clock: clock})}
	c.drain()
	return c
}

// drain takes every queued frame and applies it.
func (c *client) drain() []display.Frame {
	c.t.Helper()
	var got []display.Frame
	for {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // never wait: take only what is queued
		f, err := c.s.Next(ctx)
		if err != nil {
			return got
		}
		got = append(got, f)
		c.frames = append(c.frames, f)
		c.apply(f)
	}
}

func (c *client) apply(f display.Frame) {
	c.t.Helper()
	raw, err := json.Marshal(f)
	if err != nil {
		c.t.Fatalf("marshal frame: %v", err)
	}
	var wire struct {
		Version int64           `json:"version"`
		Ops     []display.Op    `json:"ops"`
		State   json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		c.t.Fatalf("unmarshal frame: %v", err)
	}
	if wire.State != nil {
		c.doc = decode(c.t, wire.State)
		c.version = wire.Version
		return
	}
	if wire.Version != c.version+1 {
		c.t.Fatalf("version gap: have %d, frame %d", c.version, wire.Version)
	}
	c.version = wire.Version
	c.doc, err = display.Patch(c.doc, wire.Ops)
	if err != nil {
		c.t.Fatalf("patch frame %d: %v\n%s", wire.Version, err, raw)
	}
}

// check asserts that the client's document equals the reducer's state.
func (c *client) check(r *display.Reducer) {
	c.t.Helper()
	want := decode(c.t, mustJSON(c.t, r.State()))
	if !reflect.DeepEqual(c.doc, want) {
		c.t.Fatalf("client state differs from reducer state\nclient: %s\nwant:   %s", mustJSON(c.t, c.doc), mustJSON(c.t, want))
	}
}

func decode(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return v
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

func newFake() *displaytest.FakeClock { return displaytest.NewFakeClock(t0) }
