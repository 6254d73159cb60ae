package display_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
)

// sessionSource is a HistorySource over a session.
type sessionSource struct{ s *session.Session }

func (src sessionSource) ContextSlots(ctx context.Context) ([]session.Slot, error) {
	return src.s.ContextSlots(ctx)
}

func (src sessionSource) DisplayMessages(ctx context.Context, ids []string) ([]llm.Message, []string, error) {
	return src.s.ContextMessages(ctx, ids)
}

// The session index's item counts (session.CountItems) follow the items
// ItemsFromEntries builds, turn by turn, for every kind of message; and a
// Page's marker is the number of items paged back.
func TestItemCountsMatchItems(t *testing.T) {
	ctx := context.Background()
	s, err := session.Create(ctx, t.TempDir(), "/w", session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	must := func(_ string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	result := func(id string) llm.Message {
		return llm.Message{Role: llm.RoleToolResult, ToolCallID: id, ToolName: "bash", Content: []llm.ContentBlock{llm.TextBlock("out")}}
	}
	one := 0
	for k := range 12 {
		must(s.AppendMessage(ctx, *userMsg("go")))
		switch k % 6 {
		case 0:
			must(s.AppendMessage(ctx, *assistantMsg("reading", toolCall("a", "bash", `{}`), toolCall("b", "bash", `{}`))))
			must(s.AppendMessage(ctx, result("b")))
			must(s.AppendMessage(ctx, result("a")))
		case 1:
			th := llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopStop, Content: []llm.ContentBlock{{Type: llm.BlockThinking, Thinking: "hm"}}}
			must(s.AppendMessage(ctx, th))
			must(s.AppendMessage(ctx, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopAborted}))
			must(s.AppendMessage(ctx, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopStop, Content: []llm.ContentBlock{llm.TextBlock("")}}))
		case 2:
			must(s.AppendCustomMessage(ctx, "n", []llm.ContentBlock{llm.TextBlock("hidden")}, false, nil))
			must(s.AppendCustomMessage(ctx, "n", []llm.ContentBlock{llm.TextBlock("shown")}, true, nil))
			must(s.AppendMessage(ctx, result("nobody")))
		case 3:
			code := 1
			must(s.AppendMessage(ctx, llm.Message{Role: llm.RoleBashExecution, Command: "ls", Output: "x", ExitCode: &code}))
			must(s.AppendModelChange(ctx, "p", "m"))
		case 4:
			from := s.LeafID()
			must(s.AppendMessage(ctx, *assistantMsg("abandoned")))
			if err := s.Navigate(ctx, from); err != nil {
				t.Fatal(err)
			}
			must(s.AppendBranchSummary(ctx, s.LeafID(), "gave up", nil, false))
			must(s.AppendMessage(ctx, *assistantMsg("", toolCall("c", "edit", `{"path":"f","edits":[]}`))))
			must(s.AppendMessage(ctx, result("c")))
		case 5:
			if one == 0 {
				slots, _ := s.ContextSlots(ctx)
				must(s.AppendCompaction(ctx, "summary", slots[len(slots)-6].ID, 100, nil, false))
				one++
			}
			must(s.AppendMessage(ctx, *assistantMsg("fine")))
		}
	}
	check := func(s *session.Session) {
		t.Helper()
		slots, err := s.ContextSlots(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Turn by turn, as Page builds them.
		total := 0
		for end := len(slots); end > 0; {
			j := end - 1
			for j > 0 && !slots[j].User {
				j--
			}
			var ids []string
			for _, sl := range slots[j:end] {
				ids = append(ids, sl.ID)
			}
			msgs, mids, err := s.ContextMessages(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			items := display.ItemsFromEntries(msgs, mids)
			if got := session.CountItems(slots[j:end]); got != len(items) {
				b, _ := json.Marshal(items)
				t.Errorf("turn at slot %d: counted %d items, ItemsFromEntries gives %d: %s", j, got, len(items), b)
			}
			// A decoded message's slot carries the index's counts.
			for k, m := range msgs {
				want := slots[j+idPos(ids, mids[k])]
				if got := session.MessageSlot(mids[k], m); got.Items != want.Items || got.Calls != want.Calls || got.Result != want.Result {
					t.Errorf("entry %s: MessageSlot %+v, index %+v", mids[k], got, want)
				}
			}
			total += len(items)
			end = j
		}
		if n := session.CountItems(slots); n != total || n == len(slots) {
			t.Errorf("%d slots count %d items, the turns give %d (the test needs entries and items to differ)", len(slots), n, total)
		}
		// The marker of each page is what the pages before it hold.
		src := sessionSource{s}
		paged, before := 0, ""
		first := true
		for first || before != "" {
			first = false
			items, marker, err := display.Page(ctx, src, before, 7, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			paged += len(items)
			before = ""
			if marker != nil {
				if marker.Older != total-paged {
					t.Errorf("marker %d after %d of %d items", marker.Older, paged, total)
				}
				before = marker.Before
			}
		}
		if paged != total {
			t.Errorf("paged %d items, want %d", paged, total)
		}
	}
	check(s)
	// The same counts after a reopen (the index rebuilt by a scan).
	path := s.Path()
	s.Close()
	r, err := session.Open(ctx, path, session.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	check(r)
}

func idPos(ids []string, id string) int {
	for i, v := range ids {
		if v == id {
			return i
		}
	}
	return -1
}
