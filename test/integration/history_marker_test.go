package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// markerSession writes a session whose entries and display items differ:
// assistant messages with several tool calls (results fill their calls'
// items), thinking-only and aborted empty answers, hidden and shown custom
// messages, bash executions, an orphan tool result, an assistant message
// that shows nothing, a compaction and an abandoned branch with its
// summary. It returns the path.
func markerSession(t *testing.T, dir string, turns int) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":"marker-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":%q}`+"\n", dir)
	n, parent := 0, ""
	entry := func(typ string, body map[string]any) string {
		n++
		id := fmt.Sprintf("m%07x", n)
		e := map[string]any{"type": typ, "id": id, "timestamp": "2026-01-01T00:00:00.000Z"}
		if parent == "" {
			e["parentId"] = nil
		} else {
			e["parentId"] = parent
		}
		for k, v := range body {
			e[k] = v
		}
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
		parent = id
		return id
	}
	msg := func(m map[string]any) string {
		m["timestamp"] = 1767225600000 + n
		return entry("message", map[string]any{"message": m})
	}
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	call := func(id string) map[string]any {
		return map[string]any{"type": "toolCall", "id": id, "name": "bash", "arguments": map[string]any{"command": "ls"}}
	}
	result := func(id string) {
		msg(map[string]any{"role": "toolResult", "toolCallId": id, "toolName": "bash", "content": text("out " + id), "isError": false})
	}
	var firstUsers []string
	for k := range turns {
		u := msg(map[string]any{"role": "user", "content": text(fmt.Sprintf("turn %d", k))})
		firstUsers = append(firstUsers, u)
		switch k % 8 {
		case 0: // text, two calls, their results, an answer
			a, c := fmt.Sprintf("a%d", k), fmt.Sprintf("c%d", k)
			msg(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "looking"}, call(a), call(c)}, "stopReason": "toolUse"})
			result(a)
			result(c)
			msg(map[string]any{"role": "assistant", "content": text("done"), "stopReason": "stop"})
		case 1: // thinking only, one call with an empty text block
			a := fmt.Sprintf("t%d", k)
			msg(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "thinking", "thinking": "hmm"}}, "stopReason": "stop"})
			msg(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": ""}, call(a)}, "stopReason": "toolUse"})
			result(a)
		case 2: // aborted with nothing, then an empty answer (no item)
			msg(map[string]any{"role": "assistant", "content": []any{}, "stopReason": "aborted"})
			msg(map[string]any{"role": "assistant", "content": []any{}, "stopReason": "stop"})
		case 3: // custom messages: hidden, shown; a hidden custom role message
			entry("custom_message", map[string]any{"customType": "note", "content": "hidden", "display": false})
			entry("custom_message", map[string]any{"customType": "note", "content": "shown", "display": true})
			msg(map[string]any{"role": "custom", "customType": "x", "content": "quiet", "display": false})
		case 4: // a bash execution and a plain answer
			msg(map[string]any{"role": "bashExecution", "command": "ls", "output": "a b", "exitCode": 0, "cancelled": false, "truncated": false})
			msg(map[string]any{"role": "assistant", "content": text("ok"), "stopReason": "stop"})
		case 5: // a tool result whose call is in no message
			result(fmt.Sprintf("orphan%d", k))
		case 6: // non-context entries between
			entry("model_change", map[string]any{"provider": "fake", "modelId": "m1"})
			entry("custom", map[string]any{"customType": "pi-lsp/state", "data": map[string]any{"x": 1}})
			msg(map[string]any{"role": "assistant", "content": text("fine"), "stopReason": "stop"})
		case 7: // three calls, results in another order
			cs := []string{fmt.Sprintf("x%d", k), fmt.Sprintf("y%d", k), fmt.Sprintf("z%d", k)}
			msg(map[string]any{"role": "assistant", "content": []any{call(cs[0]), call(cs[1]), call(cs[2])}, "stopReason": "toolUse"})
			result(cs[2])
			result(cs[0])
			result(cs[1])
		}
		if k == turns/3 {
			// A compaction keeping the last few turns.
			entry("compaction", map[string]any{"summary": "earlier work", "firstKeptEntryId": firstUsers[k-5], "tokensBefore": 1000})
		}
		if k == turns/2 {
			// An abandoned branch, then its summary on the main line.
			from := parent
			msg(map[string]any{"role": "user", "content": text("dead end")})
			abandoned := msg(map[string]any{"role": "assistant", "content": text("nope"), "stopReason": "stop"})
			parent = from
			entry("branch_summary", map[string]any{"fromId": abandoned, "summary": "tried a dead end"})
		}
	}
	path := filepath.Join(dir, "marker.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The state's history marker is the exact number of items display/history
// pages back, on a session where entries and items differ (tool calls,
// compactions, branch summaries, hidden and empty messages).
func TestHistoryMarkerCountsItems(t *testing.T) {
	e := newEnv(t, nil)
	dir := t.TempDir()
	path := markerSession(t, dir, 480)
	s := e.start(startOpt{})
	s.call("session/open", map[string]any{"path": path}, nil)

	var sv struct {
		State struct {
			Items   []map[string]any `json:"items"`
			History *struct {
				Older  int    `json:"older"`
				Before string `json:"before"`
			} `json:"history"`
		} `json:"state"`
	}
	s.call("display/snapshot", nil, &sv)
	h := sv.State.History
	if h == nil || h.Before == "" {
		t.Fatalf("no history marker; state holds %d items", len(sv.State.Items))
	}
	older, users, pages := 0, 0, 0
	before := h.Before
	for before != "" {
		var page struct {
			Items  []map[string]any `json:"items"`
			Before *string          `json:"before"`
		}
		s.call("display/history", map[string]any{"before": before, "limit": 150}, &page)
		older += len(page.Items)
		for _, it := range page.Items {
			if it["kind"] == "user" {
				users++
			}
		}
		pages++
		before = ""
		if page.Before != nil {
			before = *page.Before
		}
	}
	if h.Older != older {
		t.Fatalf("history.older = %d, display/history paged back %d items in %d pages", h.Older, older, pages)
	}
	if pages < 2 || older == 0 {
		t.Fatalf("paged %d items in %d pages: the session is too small to test the marker", older, pages)
	}
	t.Logf("marker %d = %d items (%d turns) in %d pages", h.Older, older, users, pages)
}
