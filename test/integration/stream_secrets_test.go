package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// TestStreamedSecretSplitAcrossDeltas: the model itself streams an
// environment secret and an sk- key, in chunks of 4 characters and shifted
// by 0–3 characters of padding, so that over the four answers a chunk
// boundary falls at every position of each secret. The chunks are far
// enough apart to leave in separate display/state frames. No byte the
// client received carries either secret; the text rebuilt from the append
// ops and from the message_update deltas shows the mask where each secret
// was; the model's next request carries the real value.
func TestStreamedSecretSplitAcrossDeltas(t *testing.T) {
	const key = "sk-abcdefghijklmnop1234"
	var script []llmtest.Response
	for pad := range 4 {
		script = append(script, llmtest.Response{
			Text:      strings.Repeat("x", pad) + " key " + envSecret + " and " + key + " end",
			ChunkSize: 4, ChunkDelayMs: 260,
		})
	}
	// Answers that start with the secret: their first chunk, folded into
	// the item's push, holds its beginning.
	for pad := range 2 {
		script = append(script, llmtest.Response{Text: strings.Repeat("y", 2*pad) + envSecret + " end", ChunkSize: 4, ChunkDelayMs: 260})
	}
	e := newEnv(t, script)
	s := e.start(startOpt{extraEnv: []string{"MY_SERVICE_API_KEY=" + envSecret}, caps: map[string]any{"harnessEvents": true}})
	for i := range len(script) {
		s.prompt(fmt.Sprintf("answer %d", i))
		s.waitIdle()
	}
	reqs := e.llm.Requests()
	if len(reqs) != 6 || !strings.Contains(string(reqs[3]), envSecret) || !strings.Contains(string(reqs[3]), key) {
		t.Fatalf("the model's request must carry its earlier answers as they were: %d requests", len(reqs))
	}
	got := s.Received()
	for _, secret := range []string{envSecret, key} {
		if i := bytes.Index(got, []byte(secret)); i >= 0 {
			t.Fatalf("%q crossed the wire: …%s…", secret, got[max(0, i-300):min(len(got), i+100)])
		}
	}

	// The streamed text as a client rebuilds it from the append ops alone,
	// per path (each answer is its own item; its first chunk, which holds no
	// secret here, is folded into the item's push).
	appended := map[string]string{}
	frames := 0
	for _, n := range s.Notifications("display/state") {
		var f struct {
			Ops [][]json.RawMessage `json:"ops"`
		}
		if json.Unmarshal(n.Params, &f) != nil {
			continue
		}
		for _, op := range f.Ops {
			var v string
			if len(op) == 3 && string(op[0]) == `"a"` && json.Unmarshal(op[2], &v) == nil {
				appended[string(op[1])] += v
				frames++
			}
		}
	}
	want := " key •••••• and •••••• end"
	answers := 0
	for path, text := range appended {
		if strings.HasSuffix(text, "•••••• and •••••• end") {
			answers++
		} else if strings.Contains(text, " and ") {
			t.Errorf("streamed text at %s: %q, want it to end %q", path, text, want)
		}
	}
	if answers != 4 || frames < 8 {
		t.Fatalf("want 4 streamed answers over many appends, got %d answers, %d appends: %v", answers, frames, appended)
	}

	// The message_update deltas, rebuilt the same way.
	deltas := ""
	for _, n := range s.Notifications("harness/event") {
		var p struct {
			Event struct {
				Type, DeltaKind, Delta string
			} `json:"event"`
		}
		if json.Unmarshal(n.Params, &p) == nil && p.Event.Type == "message_update" && p.Event.DeltaKind == "text" {
			deltas += p.Event.Delta
		}
	}
	if c := strings.Count(deltas, want); c != 4 {
		t.Fatalf("message_update deltas show the masked answer %d times, want 4: %q", c, deltas)
	}
	// The client's display copy, rebuilt from every frame, shows each
	// answer masked.
	view, err := s.Display()
	if err != nil || view.Err != nil {
		t.Fatalf("display copy: %v %v", err, view.Err)
	}
	shown, pushed := 0, 0
	for _, it := range view.State.Items {
		if strings.HasSuffix(it.Text, want) {
			shown++
		}
		if it.Text == "••••••"+" end" || it.Text == "yy••••••"+" end" {
			pushed++
		}
	}
	if shown != 4 || pushed != 2 {
		t.Fatalf("the display copy shows %d masked answers, want 4: %+v", shown, view.State.Items)
	}
}
