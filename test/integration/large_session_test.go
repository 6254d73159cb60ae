package integration

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/internal/sessiongen"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// genSession writes a generated pi session under the test's temp dir.
func genSession(t *testing.T, dir string, opts sessiongen.Options) (string, sessiongen.Stats) {
	t.Helper()
	path := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	opts.Cwd = dir
	st, err := sessiongen.Write(f, opts)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return path, st
}

// expectedItems counts the display items of a session file read
// independently: a user message is one item, an assistant message one per
// tool call plus one when it has text or thinking; tool results fill their
// call's item.
func expectedItems(t *testing.T, path string) (items, users int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Role    string `json:"role"`
				Content []struct {
					Type string `json:"type"`
				} `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.Type != "message" {
			continue
		}
		switch e.Message.Role {
		case "user":
			items++
			users++
		case "assistant":
			text := false
			for _, c := range e.Message.Content {
				switch c.Type {
				case "toolCall":
					items++
				case "text", "thinking":
					text = true
				}
			}
			if text {
				items++
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return items, users
}

func wantInvalid(t *testing.T, what string, err error) {
	t.Helper()
	var re *rpctest.Error
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Fatalf("%s: got %v, want a -32602 error", what, err)
	}
}

// A large session opens with a bounded display state, and display/history
// pages back to its first item, every item exactly once.
func TestLargeSessionDisplayHistory(t *testing.T) {
	e := newEnv(t, nil)
	path, st := genSession(t, t.TempDir(), sessiongen.Options{Bytes: 6e6, Seed: 5, ShortTurns: true})
	s := e.start(startOpt{})
	s.call("session/open", map[string]any{"path": path}, nil)

	var snap json.RawMessage
	s.call("display/snapshot", nil, &snap)
	if len(snap) > 1<<20 {
		t.Fatalf("display/snapshot is %d bytes on a %d-byte session", len(snap), st.Bytes)
	}
	var sv struct {
		State struct {
			Items   []map[string]any `json:"items"`
			History *struct {
				Older  int    `json:"older"`
				Before string `json:"before"`
			} `json:"history"`
		} `json:"state"`
	}
	if err := json.Unmarshal(snap, &sv); err != nil {
		t.Fatal(err)
	}
	items := sv.State.Items
	if n := len(items); n == 0 || n > 200 || items[0]["kind"] != "user" {
		t.Fatalf("state holds %d items, first %v; want 1-200 starting at a user item", n, items[0])
	}
	if sv.State.History == nil || sv.State.History.Before == "" || sv.State.History.Older <= 0 {
		t.Fatalf("history marker: %+v", sv.State.History)
	}

	// Bad params.
	wantInvalid(t, "unknown cursor", s.try("display/history", map[string]any{"before": "nope"}, nil))
	wantInvalid(t, "no cursor", s.try("display/history", map[string]any{}, nil))
	wantInvalid(t, "limit 1001", s.try("display/history", map[string]any{"before": sv.State.History.Before, "limit": 1001}, nil))
	wantInvalid(t, "limit -1", s.try("display/history", map[string]any{"before": sv.State.History.Before, "limit": -1}, nil))

	all := items
	before := sv.State.History.Before
	pages := 0
	for before != "" {
		var page struct {
			Items  []map[string]any `json:"items"`
			Before *string          `json:"before"`
		}
		s.call("display/history", map[string]any{"before": before, "limit": 300}, &page)
		if len(page.Items) == 0 || page.Items[0]["kind"] != "user" {
			t.Fatalf("page %d: %d items, first %v", pages, len(page.Items), page.Items)
		}
		if len(page.Items) > 300 {
			t.Fatalf("page %d: %d items over the limit", pages, len(page.Items))
		}
		all = append(page.Items, all...)
		pages++
		before = ""
		if page.Before != nil {
			before = *page.Before
		}
	}
	wantItems, users := expectedItems(t, path)
	seen := map[string]bool{}
	gotUsers := 0
	for _, it := range all {
		id := it["id"].(string)
		if seen[id] {
			t.Fatalf("item %s came back twice", id)
		}
		seen[id] = true
		if it["kind"] == "user" {
			gotUsers++
		}
	}
	if older := len(all) - len(items); sv.State.History.Older != older {
		t.Fatalf("history.older = %d, display/history paged back %d items", sv.State.History.Older, older)
	}
	if len(all) != wantItems || gotUsers != users {
		t.Fatalf("paged %d items (%d user) in %d pages, the file has %d (%d user)", len(all), gotUsers, pages, wantItems, users)
	}
	if !strings.HasPrefix(all[0]["id"].(string), "h") || all[0]["kind"] != "user" {
		t.Fatalf("first item: %v", all[0])
	}
}

// jsonDepth is the deepest nesting of arrays and objects in b.
func jsonDepth(b []byte) int {
	depth, max, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
			if depth > max {
				max = depth
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return max
}

// The tree of a long chain is flat on the wire: a chain node, whatever the
// length; branches page with next.
func TestSessionTreeFlatAndPaged(t *testing.T) {
	e := newEnv(t, nil)
	dir := t.TempDir()
	// 300 short turns: one chain of about 1,200 entries.
	path, st := genSession(t, dir, sessiongen.Options{Bytes: 300 * 3700, Seed: 7, ShortTurns: true})
	s := e.start(startOpt{})
	s.call("session/open", map[string]any{"path": path}, nil)
	var raw json.RawMessage
	s.call("session/tree", nil, &raw)
	if d := jsonDepth(raw); d > 4 {
		t.Fatalf("tree answer nests %d levels", d)
	}
	var tree struct {
		Nodes []struct {
			ID         string `json:"id"`
			ParentID   string `json:"parentId"`
			ChildCount int    `json:"childCount"`
			Chain      *struct {
				Length int    `json:"length"`
				LastID string `json:"lastId"`
			} `json:"chain"`
		} `json:"nodes"`
		LeafID string  `json:"leafId"`
		Next   *string `json:"next"`
	}
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	if len(tree.Nodes) != 1 || tree.Nodes[0].Chain == nil || int64(tree.Nodes[0].Chain.Length) != st.Entries ||
		tree.Nodes[0].Chain.LastID != tree.LeafID || tree.Next != nil {
		t.Fatalf("tree of a %d-entry chain: %s", st.Entries, raw)
	}
	var below json.RawMessage
	s.call("session/tree", map[string]any{"root": tree.LeafID}, &below)
	if !strings.Contains(string(below), `"nodes":[]`) {
		t.Fatalf("below the leaf: %s", below)
	}
	wantInvalid(t, "unknown root", s.try("session/tree", map[string]any{"root": "nope"}, nil))
	wantInvalid(t, "bad cursor", s.try("session/tree", map[string]any{"after": "garbage"}, nil))
	wantInvalid(t, "limit 0 is the default, 1001 is not", s.try("session/tree", map[string]any{"limit": 1001}, nil))
	wantInvalid(t, "limit -3", s.try("session/tree", map[string]any{"limit": -3}, nil))
	wantInvalid(t, "depth 99", s.try("session/tree", map[string]any{"depth": 99}, nil))

	// A session with 100 abandoned branches: every branch is listed once,
	// page by page, and each branch point's children page with next.
	path2, st2 := genSession(t, t.TempDir(), sessiongen.Options{Bytes: 1.4e6, Seed: 9, ShortTurns: true, BranchEvery: 3})
	if st2.Branches < 100 {
		t.Fatalf("generator made %d branches", st2.Branches)
	}
	s.call("session/open", map[string]any{"path": path2}, nil)
	seen := map[string]bool{}
	var walk func(root string)
	nodes := 0
	walk = func(root string) {
		after := ""
		for {
			params := map[string]any{"limit": 1}
			if root != "" {
				params["root"] = root
			}
			if after != "" {
				params["after"] = after
			}
			var page json.RawMessage
			s.call("session/tree", params, &page)
			if d := jsonDepth(page); d > 4 {
				t.Fatalf("tree page nests %d levels", d)
			}
			var p struct {
				Nodes []struct {
					ID       string `json:"id"`
					ParentID string `json:"parentId"`
					Chain    *struct {
						Length int    `json:"length"`
						LastID string `json:"lastId"`
					} `json:"chain"`
				} `json:"nodes"`
				Next *string `json:"next"`
			}
			if err := json.Unmarshal(page, &p); err != nil {
				t.Fatal(err)
			}
			for _, n := range p.Nodes {
				if seen[n.ID] || n.ParentID != root {
					t.Fatalf("node %s (parent %s) under %q seen twice or misplaced", n.ID, n.ParentID, root)
				}
				seen[n.ID] = true
				nodes++
				next := n.ID
				if n.Chain != nil {
					next = n.Chain.LastID
				}
				walk(next)
			}
			if p.Next == nil {
				return
			}
			after = *p.Next
		}
	}
	walk("")
	// Every branch point has two children: the abandoned turn and the
	// summary, so there are at least 2 nodes per branch.
	if nodes < 2*int(st2.Branches) {
		t.Fatalf("walked %d nodes for %d branches", nodes, st2.Branches)
	}
}
