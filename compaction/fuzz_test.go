package compaction

import (
	"errors"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// itemsFromBytes builds an arbitrary branch: each pair of bytes is one entry
// (kind/role, size or compaction target).
func itemsFromBytes(data []byte) []Item {
	var b branch
	for i := 0; i+1 < len(data); i += 2 {
		size := int(data[i+1]) * 8
		switch data[i] % 9 {
		case 0:
			b.user(tokens(size, "u"))
		case 1:
			b.assistant(tokens(size, "a"))
		case 2:
			b.assistant("", call{"read", `{"path":"f.go"}`})
		case 3, 4:
			b.toolResult("read", tokens(size*4, "r"))
		case 5:
			b.other()
		case 6:
			b.add(KindCustomMessage, &llm.Message{Role: llm.RoleCustom, Content: []llm.ContentBlock{llm.TextBlock(tokens(size, "c"))}})
		case 7:
			b.add(KindMessage, &llm.Message{Role: llm.RoleBashExecution, Command: "ls", Output: tokens(size, "o")})
		case 8:
			if n := len(b.items); n > 0 {
				b.compaction("S", b.items[int(data[i+1])%n].EntryID, &FileOps{ReadFiles: []string{"x"}})
			}
		}
	}
	return b.items
}

func FuzzPrepare(f *testing.F) {
	f.Add([]byte{0, 50, 2, 0, 3, 200, 1, 10, 0, 60, 1, 5}, uint16(100))
	f.Add([]byte{0, 5, 2, 0, 3, 255, 2, 0, 4, 255, 5, 0, 1, 1}, uint16(10))
	f.Add([]byte{0, 90, 1, 90, 8, 0, 0, 90, 1, 90, 6, 20, 7, 30}, uint16(200))
	f.Fuzz(func(t *testing.T, data []byte, keep uint16) {
		items := itemsFromBytes(data)
		s := Settings{Enabled: true, ReserveTokens: 100, KeepRecentTokens: int(keep)}
		p, err := Prepare(items, s, nil)
		if err != nil {
			if !errors.Is(err, ErrNothingToCompact) && !errors.Is(err, ErrAlreadyCompacted) {
				t.Fatalf("unexpected error %v", err)
			}
		} else {
			pos := ids(items)
			i, ok := pos[p.FirstKeptEntryID]
			if !ok {
				t.Fatalf("first kept %q not in branch", p.FirstKeptEntryID)
			}
			if m := items[i].Message; m != nil && m.Role == llm.RoleToolResult {
				t.Fatalf("cut at a tool result")
			}
			if p.IsSplitTurn != (len(p.TurnPrefix) > 0) {
				t.Fatalf("split %v with %d prefix messages", p.IsSplitTurn, len(p.TurnPrefix))
			}
			if p.IsSplitTurn {
				switch p.TurnPrefix[0].Role {
				case llm.RoleUser, llm.RoleBashExecution, llm.RoleCustom, llm.RoleBranchSummary:
				default:
					t.Fatalf("turn prefix starts with %s", p.TurnPrefix[0].Role)
				}
			}
			if len(p.ToSummarize)+len(p.TurnPrefix) == 0 || len(p.ToSummarize)+len(p.TurnPrefix) > len(items) {
				t.Fatalf("%d + %d messages from %d items", len(p.ToSummarize), len(p.TurnPrefix), len(items))
			}
		}
		start := contextStart(items)
		cut := findCutPoint(items, start, len(items), s.KeepRecentTokens, nil).firstKept
		trimmed, saved, trims := TrimToolOutputs(items, s, nil, 100)
		for i := cut; i < len(items); i++ {
			if trimmed[i].Message != items[i].Message {
				t.Fatalf("kept item %d trimmed", i)
			}
		}
		if saved < 0 || (len(trims) == 0 && saved != 0) {
			t.Fatalf("saved %d with %d trims", saved, len(trims))
		}
		_ = Plan(items, 4000, s, nil, 100)
		_ = PrepareBranch(newestFirst(items), int(keep), nil)
	})
}
