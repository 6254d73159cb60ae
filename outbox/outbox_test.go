package outbox

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/tools"
)

const secret = "s3cr3t-value-4711"

func redactor() *tools.Redactor {
	return tools.NewRedactor([]string{"MY_SERVICE_API_KEY=" + secret})
}

func text(delta string, seq uint64) protocol.Event {
	return protocol.Event{Type: protocol.EvMessageUpdate, Seq: seq, DeltaKind: "text", Delta: delta}
}

func sub(call, delta string, seq uint64) protocol.Event {
	c := text(delta, seq)
	return protocol.Event{Type: protocol.EvSubagentEvent, Seq: seq, Subagent: &protocol.ApprovalSubagent{Agent: "explore", ToolCallID: call}, Child: &c}
}

func subEnd(call string, typ protocol.EventType, seq uint64) protocol.Event {
	c := protocol.Event{Type: typ, Seq: seq}
	return protocol.Event{Type: protocol.EvSubagentEvent, Seq: seq, Subagent: &protocol.ApprovalSubagent{Agent: "explore", ToolCallID: call}, Child: &c}
}

func takeAll(t *testing.T, o *Outbox) []Item {
	t.Helper()
	items, _, _ := o.Take(context.Background())
	return items
}

// joined rebuilds each stream's text from the deltas sent: the
// subagent's tool call ("" for the parent) → the joined deltas.
func joined(items []Item) map[string]string {
	out := map[string]string{}
	for _, it := range items {
		if it.Event == nil {
			continue
		}
		if s, d, ok := streamOf(it.Event); ok {
			out[s.Subagent] += d
		}
	}
	return out
}

// TestHoldSubagentDeltas: two subagents stream at once, each a secret
// split across deltas and interleaved with the other's (and the parent's);
// no stream's joined deltas hold a secret before the egress masks them
// whole: every secret leaves inside one delta, and a stream's held tail
// goes out only into its own stream (with its next delta or at its end),
// never because another stream produced an event.
func TestHoldSubagentDeltas(t *testing.T) {
	r := redactor()
	line := "the key is " + secret + " and more"
	for cut := 1; cut < len(line); cut++ {
		o := New(Options{Hold: r})
		a, b := line[:cut], line[cut:]
		seq := uint64(0)
		next := func() uint64 { seq++; return seq }
		o.Event(sub("call_1", a, next()))
		o.Event(sub("call_2", a, next()))
		o.Event(text("parent ", next()))
		o.Event(sub("call_2", b, next()))
		o.Event(protocol.Event{Type: protocol.EvToolUpdate, ToolCallID: "call_3", Output: "x", Seq: next()})
		o.Event(sub("call_1", b, next()))
		o.Event(subEnd("call_1", protocol.EvMessageEnd, next()))
		o.Event(protocol.Event{Type: protocol.EvToolEnd, ToolCallID: "call_2", Seq: next()})
		o.Event(protocol.Event{Type: protocol.EvAgentEnd, Seq: next()})
		items := takeAll(t, o)
		var seqs []uint64
		for _, it := range items {
			seqs = append(seqs, it.Event.Seq)
			if _, d, ok := streamOf(it.Event); ok && strings.Contains(d, secret[:len(secret)-1]) && !strings.Contains(d, secret) {
				t.Fatalf("cut %d: a delta holds part of the secret: %q", cut, d)
			}
			if _, d, ok := streamOf(it.Event); ok && strings.Contains(d, secret) && r.Redact(d) == d {
				t.Fatalf("cut %d: unmaskable delta %q", cut, d)
			}
		}
		j := joined(items)
		for _, k := range []string{"call_1/", "call_2/"} {
			if j[k] != line {
				t.Fatalf("cut %d: stream %s joined %q", cut, k, j[k])
			}
		}
		// Every delta that carries part of the secret carries all of it
		// (so the egress masks it whole).
		for _, it := range items {
			if _, d, ok := streamOf(it.Event); ok && r.Redact(d) != d && strings.Contains(r.Redact(d), "s3cr") {
				t.Fatalf("cut %d: %q", cut, d)
			}
		}
		// Every event once; in order within each stream.
		if len(seqs) != int(seq) {
			t.Fatalf("cut %d: %d events sent, %d put: %v", cut, len(seqs), seq, seqs)
		}
		lastOf := map[Stream]uint64{}
		for _, it := range items {
			s, _, _ := streamOf(it.Event)
			if it.Event.Seq < lastOf[s] {
				t.Fatalf("cut %d: stream %v out of order: %v", cut, s, seqs)
			}
			lastOf[s] = it.Event.Seq
		}
		if o.Held() != 0 {
			t.Fatalf("cut %d: %d streams still hold text after agent_end", cut, o.Held())
		}
	}
}

// TestHeldTailWaitsForItsOwnStream: another stream's events do not
// release a held tail; its own end does, just before the ending event.
func TestHeldTailWaitsForItsOwnStream(t *testing.T) {
	o := New(Options{Hold: redactor()})
	o.Event(sub("call_1", "key s3cr", 1))
	o.Event(sub("call_2", "other", 2))
	o.Event(protocol.Event{Type: protocol.EvToolStart, ToolCallID: "t", Seq: 3})
	o.Event(subEnd("call_2", protocol.EvMessageEnd, 4))
	items := takeAll(t, o)
	if j := joined(items); j["call_1/"] != "" || j["call_2/"] != "other" || len(items) != 3 || o.Held() != 1 {
		t.Fatalf("sent %q, %d items, %d held", j, len(items), o.Held())
	}
	o.Event(subEnd("call_1", protocol.EvMessageEnd, 5))
	items = takeAll(t, o)
	if len(items) != 2 || items[0].Event.Child.Delta != "key s3cr" || items[0].Event.Seq != 1 || items[1].Event.Child.Type != protocol.EvMessageEnd {
		t.Fatalf("release: %+v", items)
	}
}

// TestSlowClientMergesOnlyDeltas: past MergeAt queued items a token delta
// merges into its own stream's queued delta; terminal events are kept.
func TestSlowClientMergesOnlyDeltas(t *testing.T) {
	o := New(Options{MergeAt: 4})
	for i := range 4 {
		o.Note("$/progress", i)
	}
	o.Event(text("a", 5))
	o.Event(sub("c", "x", 6))
	o.Event(text("b", 7))
	o.Event(sub("c", "y", 8))
	o.Event(protocol.Event{Type: protocol.EvError, Error: "boom", Seq: 9})
	o.Event(text("c", 10))
	o.Event(protocol.Event{Type: protocol.EvAgentEnd, Seq: 11})
	items := takeAll(t, o)
	var got []string
	for _, it := range items[4:] {
		if s, d, ok := streamOf(it.Event); ok {
			got = append(got, fmt.Sprintf("%s%s@%d", s.Subagent, d, it.Event.Seq))
		} else {
			got = append(got, string(it.Event.Type))
		}
	}
	if want := "[ab@7 c/xy@8 error c@10 agent_end]"; fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}

// TestSlowClientResyncsFrames: frames past MergeAt are dropped for a
// snapshot; frames at or below the snapshot's version stay dropped.
func TestSlowClientResyncsFrames(t *testing.T) {
	o := New(Options{MergeAt: 2})
	o.Frame(1, "f1")
	o.Note("n", 1)
	o.Frame(2, "f2")
	o.Frame(3, "f3")
	items, resync, _ := o.Take(context.Background())
	if !resync || len(items) != 1 || items[0].Method != "n" {
		t.Fatalf("resync %v, items %+v", resync, items)
	}
	o.Frame(4, "f4")
	o.Snapshot(4)
	o.Frame(5, "f5")
	items, resync, _ = o.Take(context.Background())
	if resync || len(items) != 1 || items[0].Version != 5 {
		t.Fatalf("resync %v, items %+v", resync, items)
	}
}

// TestJobOutputMerges: the job-output hook merges per job when behind.
func TestJobOutputMerges(t *testing.T) {
	o := New(Options{MergeAt: 1})
	o.Note("n", nil)
	cat := func(s string) func(any) any { return func(p any) any { return p.(string) + s } }
	o.Job("job/output", "j1", "a", cat("a"))
	o.Job("job/output", "j1", "b", cat("b"))
	o.Job("job/output", "j2", "z", cat("z"))
	items := takeAll(t, o)
	if len(items) != 3 || items[1].Params != "ab" || items[2].Params != "z" || items[1].Kind() != JobOutput {
		t.Fatalf("%+v", items)
	}
}

// TestCloseReturnsQueued: Take returns what was queued, then open false.
func TestCloseReturnsQueued(t *testing.T) {
	o := New(Options{})
	o.Note("n", nil)
	o.Close()
	if items, _, open := o.Take(context.Background()); !open || len(items) != 1 {
		t.Fatalf("open %v, %d items", open, len(items))
	}
	if _, _, open := o.Take(context.Background()); open {
		t.Fatal("open after close")
	}
}

func update(seq uint64, kind string, delta string) protocol.Event {
	return protocol.Event{Type: protocol.EvMessageUpdate, Seq: seq, DeltaKind: kind, Delta: delta}
}

// TestQueueIsBoundedForASlowEditor (was rpc's noteQueue test, the attach
// proxy's queue): below the threshold every item is kept as it came; past
// it, token deltas of the same stream merge (text and last seq kept),
// other events are never merged or dropped, and display frames give way
// to one snapshot.
func TestQueueIsBoundedForASlowEditor(t *testing.T) {
	const at = 8
	o := New(Options{MergeAt: at})
	for i := range at {
		o.Event(update(uint64(i), "text", "a"))
	}
	o.Event(update(at, "text", "bc"))
	o.Event(update(at+1, "text", "d"))
	o.Event(update(at+2, "thinking", "t")) // another stream: not merged
	o.Event(update(at+3, "thinking", "u"))
	o.Event(protocol.Event{Type: protocol.EvAgentEnd, Seq: 99})
	o.Event(update(at+4, "text", "e")) // after agent_end: not merged into it
	o.Frame(5, "f5")
	o.Frame(6, "f6")
	o.Note("session/owner", map[string]any{"pid": 1})

	items, resync, open := o.Take(context.Background())
	if !open || !resync {
		t.Fatalf("open %v resync %v, want both", open, resync)
	}
	var got []string
	for _, it := range items {
		if it.Event == nil {
			got = append(got, it.Method)
			continue
		}
		got = append(got, fmt.Sprintf("%s:%d:%s:%s", it.Event.Type, it.Event.Seq, it.Event.DeltaKind, it.Event.Delta))
	}
	want := []string{}
	for i := range at - 1 {
		want = append(want, fmt.Sprintf("message_update:%d:text:a", i))
	}
	want = append(want,
		fmt.Sprintf("message_update:%d:text:abcd", at+1), // the 8th delta with the two after it
		fmt.Sprintf("message_update:%d:thinking:tu", at+3),
		"agent_end:99::",
		fmt.Sprintf("message_update:%d:text:e", at+4),
		"session/owner")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("queued:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The snapshot sent is version 10: older frames still arriving are
	// dropped, newer ones kept.
	o.Frame(9, "f9")
	o.Snapshot(10)
	o.Frame(10, "f10")
	o.Frame(11, "f11")
	items, resync, _ = o.Take(context.Background())
	if resync || len(items) != 1 || items[0].Version != 11 {
		t.Fatalf("after the snapshot: resync %v, %+v", resync, items)
	}
}

// Below the threshold display frames pass as they are.
func TestQueueKeepsFramesOfAFastEditor(t *testing.T) {
	o := New(Options{})
	for v := int64(1); v <= 3; v++ {
		o.Frame(v, v)
	}
	items, resync, _ := o.Take(context.Background())
	if resync || len(items) != 3 {
		t.Fatalf("resync %v, %d items", resync, len(items))
	}
}

// TestChunkMergesOnlyItsOwnStream: when the client is behind, ACP chunks
// merge into the queued chunk of their own stream only, never across a
// kept item (a tool call), and kept items are never dropped; a client that
// keeps up gets every chunk as it came.
func TestChunkMergesOnlyItsOwnStream(t *testing.T) {
	cat := func(s string) func(any) any { return func(p any) any { return p.(string) + s } }
	msg, thought := Stream{Subagent: "sess1", Kind: "message"}, Stream{Subagent: "sess1", Kind: "thought"}

	fast := New(Options{MergeAt: 100})
	fast.Chunk("session/update", msg, "a", cat("a"))
	fast.Chunk("session/update", msg, "b", cat("b"))
	if items := takeAll(t, fast); len(items) != 2 || items[0].Kind() != Chunk {
		t.Fatalf("a client that keeps up: %+v", items)
	}

	o := New(Options{MergeAt: 1})
	o.Note("session/update", "tool_call 1")
	o.Chunk("session/update", msg, "a", cat("a"))
	o.Chunk("session/update", thought, "x", cat("x"))
	o.Chunk("session/update", msg, "b", cat("b"))
	o.Note("session/update", "tool_call 2")
	o.Chunk("session/update", msg, "c", cat("c"))
	o.Chunk("session/update", msg, "d", cat("d"))
	o.Note("session/update", "plan")
	var got []any
	for _, it := range takeAll(t, o) {
		got = append(got, it.Params)
	}
	want := []any{"tool_call 1", "ab", "x", "tool_call 2", "cd", "plan"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
