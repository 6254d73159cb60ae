package rpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/tools"
)

// TestHoldDisplayFrames: a secret split over two frames' append ops is sent
// masked whole; the held word goes out with the op that ends the stream;
// a state frame drops what was held.
func TestHoldDisplayFrames(t *testing.T) {
	r := tools.NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t-value-4711"})
	h := newHolder(r)
	doc := any(map[string]any{"items": []any{map[string]any{"text": "", "streaming": true}}})
	frame := func(ops string) []byte {
		bodies, err := h.apply(jsonrpc2.NewNotification("display/state", []byte(`{"version":1,"ops":`+ops+`}`)))
		if err != nil || len(bodies) != 1 {
			t.Fatalf("apply: %v, %d bodies", err, len(bodies))
		}
		var f struct {
			Params struct {
				Ops []display.Op `json:"ops"`
			} `json:"params"`
		}
		if err := json.Unmarshal(bodies[0], &f); err != nil {
			t.Fatal(err)
		}
		if doc, err = display.Patch(doc, f.Params.Ops); err != nil {
			t.Fatalf("%s: %v", bodies[0], err)
		}
		return bodies[0]
	}
	text := func() string { return doc.(map[string]any)["items"].([]any)[0].(map[string]any)["text"].(string) }
	b1 := frame(`[["a",["items",0,"text"],"the key is s3cr3t-va"]]`)
	b2 := frame(`[["a",["items",0,"text"],"lue-4711 and more"]]`)
	if strings.Contains(string(b1)+string(b2), "s3cr3t") || text() != "the key is ••••••"+" and " {
		t.Fatalf("frames %s %s; text %q", b1, b2, text())
	}
	frame(`[["s",["items",0,"streaming"],false]]`)
	if text() != "the key is •••••• and more" || h.display.Len() != 0 {
		t.Fatalf("the held word did not go out at the stream's end: %q", text())
	}
	frame(`[["a",["items",0,"text"]," tail"]]`)
	if _, err := h.apply(jsonrpc2.NewNotification("display/state", []byte(`{"version":2,"state":{}}`))); err != nil || h.display.Len() != 0 {
		t.Fatalf("a state frame must drop the held text: %v, %d held", err, h.display.Len())
	}
}

// TestHoldPushedText: an item's first text folded into its push is held
// like an append, at the item's index (known from the state frame).
func TestHoldPushedText(t *testing.T) {
	h := newHolder(tools.NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t-value-4711"}))
	send := func(params string) string {
		bodies, err := h.apply(jsonrpc2.NewNotification("display/state", []byte(params)))
		if err != nil || len(bodies) != 1 {
			t.Fatalf("apply: %v, %d bodies", err, len(bodies))
		}
		return string(bodies[0])
	}
	send(`{"version":1,"state":{"items":[{"kind":"user","text":"hi"}]}}`)
	b1 := send(`{"version":2,"ops":[["p",["items"],{"kind":"assistant","text":"the key is s3cr","streaming":true}]]}`)
	b2 := send(`{"version":3,"ops":[["a",["items",1,"text"],"3t-value-4711 ok"]]}`)
	b3 := send(`{"version":4,"ops":[["s",["items",1,"streaming"],false]]}`)
	all := b1 + b2 + b3
	if strings.Contains(all, "s3cr") || !strings.Contains(b2, `"••••••`) || !strings.Contains(b3, `"ok"`) {
		t.Fatalf("frames:\n%s\n%s\n%s", b1, b2, b3)
	}
}

// TestHoldCountsSnapshotWhenNothingIsHeld: a display/snapshot answer sets
// the item count even when nothing is held. A frame the snapshot dropped
// (never sent) pushed an item; the next pushed item's held text must go to
// its own index, not to the one before it (clean-clone CI: a held tail
// landed on the user item, or on a tool item that has no text).
func TestHoldCountsSnapshotWhenNothingIsHeld(t *testing.T) {
	h := newHolder(tools.NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t-value-4711"}))
	doc := any(nil)
	send := func(msg jsonrpc2.Message) {
		bodies, err := h.apply(msg)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bodies {
			var f struct {
				Method string `json:"method"`
				Params struct {
					State any          `json:"state"`
					Ops   []display.Op `json:"ops"`
				} `json:"params"`
				Result struct {
					State any `json:"state"`
				} `json:"result"`
			}
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatal(err)
			}
			switch {
			case f.Method == "" && f.Result.State != nil:
				doc = f.Result.State
			case f.Params.State != nil:
				doc = f.Params.State
			default:
				if doc, err = display.Patch(doc, f.Params.Ops); err != nil {
					t.Fatalf("%s: %v", b, err)
				}
			}
		}
	}
	frame := func(params string) { send(jsonrpc2.NewNotification("display/state", []byte(params))) }
	frame(`{"version":1,"state":{"items":[]}}`)
	// The frame pushing the user item was dropped for the snapshot, which
	// holds it.
	send(jsonrpc2.NewResponse(jsonrpc2.NewNumberID(7), jsonrpc2.RawMessage(`{"version":3,"state":{"items":[{"id":"i1","kind":"user","text":"q"}]}}`), nil))
	frame(`{"version":4,"ops":[["p",["items"],{"id":"i2","kind":"assistant","text":"first s3cr","streaming":true}]]}`)
	frame(`{"version":5,"ops":[["a",["items",1,"text"],"answer"]]}`)
	frame(`{"version":6,"ops":[["s",["items",1,"streaming"],false]]}`)
	items := doc.(map[string]any)["items"].([]any)
	user, answer := items[0].(map[string]any)["text"], items[1].(map[string]any)["text"]
	if user != "q" || answer != "first s3cranswer" {
		t.Fatalf("user %q, answer %q", user, answer)
	}
}

// TestHoldSubagentDeltas: a secret a subagent streams across two
// subagent_event message_updates is masked whole, and every event is sent
// once, in order. (Held text goes out before any other event, to keep the
// order, so streams that interleave — parallel subagents — release each
// other's held tails: that case is not covered.)
func TestHoldSubagentDeltas(t *testing.T) {
	r := tools.NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t-value-4711"})
	h := newHolder(r)
	var sent []string
	send := func(ev string) {
		bodies, err := h.apply(jsonrpc2.NewNotification("harness/event", []byte(`{"event":`+ev+`}`)))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bodies {
			out, err := egressBody(r, b)
			if err != nil {
				t.Fatal(err)
			}
			sent = append(sent, string(out))
		}
	}
	sub := func(seq int, delta string) string {
		return fmt.Sprintf(`{"type":"subagent_event","seq":%d,"subagent":{"agent":"explore","toolCallId":"call_1"},"child":{"type":"message_update","seq":%d,"deltaKind":"text","delta":%q}}`, seq, seq, delta)
	}
	send(`{"type":"message_update","seq":1,"deltaKind":"text","delta":"parent "}`)
	send(sub(2, "found s3cr3t-va"))
	send(sub(3, "lue-4711 here"))
	send(`{"type":"agent_end","seq":4}`)
	all := strings.Join(sent, "\n")
	if strings.Contains(all, "s3cr3t") {
		t.Fatalf("the secret crossed:\n%s", all)
	}
	var child, parent string
	var seqs []int
	for _, b := range sent {
		var m struct {
			Params struct {
				Event struct {
					Type  string `json:"type"`
					Seq   int    `json:"seq"`
					Delta string `json:"delta"`
					Child *struct {
						Delta string `json:"delta"`
					} `json:"child"`
				} `json:"event"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(b), &m); err != nil {
			t.Fatal(err)
		}
		ev := m.Params.Event
		seqs = append(seqs, ev.Seq)
		if ev.Child != nil {
			child += ev.Child.Delta
		} else {
			parent += ev.Delta
		}
	}
	if child != "found •••••• here" || parent != "parent " {
		t.Fatalf("child %q, parent %q:\n%s", child, parent, all)
	}
	if fmt.Sprint(seqs) != "[1 2 3 4]" {
		t.Fatalf("events out of order or not once: %v", seqs)
	}
}
