package compaction

import (
	"errors"
	"reflect"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

func roles(msgs []llm.Message) []llm.Role {
	var out []llm.Role
	for _, m := range msgs {
		out = append(out, m.Role)
	}
	return out
}

func TestPrepareCutPoints(t *testing.T) {
	const (
		U  = llm.RoleUser
		A  = llm.RoleAssistant
		TR = llm.RoleToolResult
	)
	read := call{"read", `{"path":"a.go"}`}
	tests := []struct {
		name      string
		build     func(b *branch)
		keep      int
		firstKept string
		split     bool
		summarize []llm.Role
		prefix    []llm.Role
	}{
		{
			name: "whole turns: cut at the user message where the budget is crossed",
			build: func(b *branch) {
				b.user(tokens(1000, "a")) // e00
				b.assistant(tokens(1000, "b"))
				b.user(tokens(1000, "c")) // e02
				b.assistant(tokens(1000, "d"))
			},
			keep: 1500, firstKept: "e02", summarize: []llm.Role{U, A},
		},
		{
			name: "budget crossed exactly on a message counts as reached",
			build: func(b *branch) {
				b.user(tokens(1000, "a"))
				b.assistant(tokens(1000, "b"))
				b.user(tokens(1000, "c")) // e02
				b.assistant(tokens(1000, "d"))
			},
			keep: 2000, firstKept: "e02", summarize: []llm.Role{U, A},
		},
		{
			name: "crossing on a tool result moves the cut forward to the next assistant: split turn",
			build: func(b *branch) {
				b.user(tokens(100, "a"))                // e00
				b.assistant("", read)                   // e01
				b.toolResult("read", tokens(2000, "r")) // e02: budget crossed here
				b.assistant(tokens(100, "b"), read)     // e03: first valid cut point after it
				b.toolResult("read", tokens(100, "s"))
				b.assistant(tokens(100, "c"))
			},
			keep: 2200, firstKept: "e03", split: true, prefix: []llm.Role{U, A, TR},
		},
		{
			name: "crossing on an assistant with tool calls keeps its results with it",
			build: func(b *branch) {
				b.user(tokens(500, "a"))            // e00
				b.assistant(tokens(500, "b"), read) // e01: crossed here
				b.toolResult("read", tokens(500, "r"))
				b.assistant(tokens(500, "c"))
			},
			keep: 1500, firstKept: "e01", split: true, prefix: []llm.Role{U},
		},
		{
			name: "tool result right before the boundary goes to the summary, never alone into the tail",
			build: func(b *branch) {
				b.user(tokens(100, "a"))                // e00
				b.assistant("", read)                   // e01
				b.toolResult("read", tokens(1000, "r")) // e02
				b.assistant(tokens(10, "x"))            // e03
				b.user(tokens(1000, "c"))               // e04: crossed here
				b.assistant(tokens(100, "d"))
			},
			keep: 1100, firstKept: "e04", summarize: []llm.Role{U, A, TR, A},
		},
		{
			name: "settings entries just before the cut are kept with it, no split",
			build: func(b *branch) {
				b.user(tokens(1000, "a"))
				b.assistant(tokens(1000, "b"))
				b.other() // e02: model_change
				b.user(tokens(1000, "c"))
				b.assistant(tokens(1000, "d"))
			},
			keep: 1500, firstKept: "e02", summarize: []llm.Role{U, A},
		},
		{
			name: "one huge turn: cut at the last assistant that fits",
			build: func(b *branch) {
				b.user(tokens(50, "a")) // e00
				for range 4 {
					b.assistant("", read)
					b.toolResult("read", tokens(1000, "r"))
				} // e01..e08
				b.assistant(tokens(50, "z")) // e09
			},
			keep: 1500, firstKept: "e07", split: true, prefix: []llm.Role{U, A, TR, A, TR, A, TR},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b branch
			tt.build(&b)
			p, err := Prepare(b.items, Settings{Enabled: true, ReserveTokens: 1000, KeepRecentTokens: tt.keep}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.FirstKeptEntryID != tt.firstKept || p.IsSplitTurn != tt.split {
				t.Fatalf("first kept %s split %v, want %s %v", p.FirstKeptEntryID, p.IsSplitTurn, tt.firstKept, tt.split)
			}
			if got := roles(p.ToSummarize); !reflect.DeepEqual(got, tt.summarize) {
				t.Errorf("to summarize %v, want %v", got, tt.summarize)
			}
			if got := roles(p.TurnPrefix); !reflect.DeepEqual(got, tt.prefix) {
				t.Errorf("turn prefix %v, want %v", got, tt.prefix)
			}
			kept := b.items[ids(b.items)[p.FirstKeptEntryID]]
			if kept.Message != nil && kept.Message.Role == llm.RoleToolResult {
				t.Errorf("cut at a tool result")
			}
		})
	}
}

func TestPrepareNothingToDo(t *testing.T) {
	var small branch
	small.user("hi")
	small.assistant("hello")
	s := Settings{Enabled: true, ReserveTokens: 100, KeepRecentTokens: 1000}
	if _, err := Prepare(small.items, s, nil); !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("small session: %v, want ErrNothingToCompact", err)
	}
	var huge branch // the newest tool result alone is over budget: no cut point after it
	huge.user("go")
	huge.assistant("", call{"bash", `{"command":"ls"}`})
	huge.toolResult("bash", tokens(5000, "x"))
	if _, err := Prepare(huge.items, s, nil); !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("unsplittable tail: %v, want ErrNothingToCompact", err)
	}
	small.compaction("S", "e00", nil)
	if _, err := Prepare(small.items, s, nil); !errors.Is(err, ErrAlreadyCompacted) {
		t.Errorf("after compaction: %v, want ErrAlreadyCompacted", err)
	}
	if _, err := Prepare(nil, s, nil); !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("empty: %v, want ErrNothingToCompact", err)
	}
}

func TestPrepareSecondCompactionStartsAtPreviousKeptBoundary(t *testing.T) {
	var b branch
	b.user(tokens(1000, "a"))      // e00: summarized by the first compaction
	b.assistant(tokens(1000, "b")) // e01
	kept := b.user(tokens(1000, "c"))
	b.assistant(tokens(1000, "d")) // e03
	b.compaction("FIRST SUMMARY", kept, &FileOps{ReadFiles: []string{"x.go"}, ModifiedFiles: []string{}})
	b.user(tokens(1000, "e")) // e05
	b.assistant(tokens(1000, "f"))
	p, err := Prepare(b.items, Settings{Enabled: true, ReserveTokens: 1000, KeepRecentTokens: 1500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.PreviousSummary != "FIRST SUMMARY" || p.FirstKeptEntryID != "e05" {
		t.Fatalf("previous %q first kept %s", p.PreviousSummary, p.FirstKeptEntryID)
	}
	// e02, e03 survived the first compaction and are summarized now; e00, e01
	// and the compaction entry itself are not.
	if len(p.ToSummarize) != 2 || p.ToSummarize[0].Text() != tokens(1000, "c") || p.ToSummarize[1].Text() != tokens(1000, "d") {
		t.Fatalf("to summarize: %v", roles(p.ToSummarize))
	}
	// Context before: summary (chars/4 of "FIRST SUMMARY" = 4) + e02, e03 + e05, e06.
	if p.TokensBefore != 4+4000 {
		t.Errorf("tokens before %d, want %d", p.TokensBefore, 4004)
	}
	if !reflect.DeepEqual(p.FileOps.ReadFiles, []string{"x.go"}) {
		t.Errorf("previous read files not carried: %v", p.FileOps)
	}
}

func TestFileOpsAcrossTwoCompactions(t *testing.T) {
	var b branch
	b.user("work")
	b.assistant("", call{"read", `{"path":"a.go"}`}, call{"read", `{"path":"b.go"}`})
	b.toolResult("read", "...")
	b.assistant("", call{"edit", `{"path":"b.go","oldText":"x","newText":"y"}`}, call{"write", `{"path":"c.go","content":""}`})
	b.toolResult("edit", "ok")
	b.assistant("", call{"bash", `{"path":"ignored.go"}`}, call{"read", `{"Path":"wrongcase.go"}`}, call{"read", `{"path":7}`})
	b.toolResult("bash", "ok")
	kept := b.user(tokens(2000, "k"))
	b.assistant("done")
	s := Settings{Enabled: true, ReserveTokens: 1000, KeepRecentTokens: 1000}
	p1, err := Prepare(b.items, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p1.FirstKeptEntryID != kept {
		t.Fatalf("first kept %s, want %s", p1.FirstKeptEntryID, kept)
	}
	want1 := FileOps{ReadFiles: []string{"a.go"}, ModifiedFiles: []string{"b.go", "c.go"}}
	if !reflect.DeepEqual(p1.FileOps, want1) {
		t.Fatalf("first: %+v, want %+v", p1.FileOps, want1)
	}
	r1, err := Summarize(t.Context(), p1, llm.Model{}, &fakeSummarizer{}, "")
	if err != nil {
		t.Fatal(err)
	}
	b.compaction(r1.Summary, r1.FirstKeptEntryID, &r1.Details)
	b.user("more")
	b.assistant("", call{"read", `{"path":"c.go"}`}, call{"read", `{"path":"d.go"}`}, call{"edit", `{"path":"a.go"}`})
	b.toolResult("read", "...")
	b.user(tokens(2000, "z"))
	p2, err := Prepare(b.items, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	// a.go was read, now edited: modified. c.go was written, now read: stays
	// modified. d.go only read.
	want2 := FileOps{ReadFiles: []string{"d.go"}, ModifiedFiles: []string{"a.go", "b.go", "c.go"}}
	if !reflect.DeepEqual(p2.FileOps, want2) {
		t.Fatalf("second: %+v, want %+v", p2.FileOps, want2)
	}
	r2, err := Summarize(t.Context(), p2, llm.Model{}, &fakeSummarizer{}, "")
	if err != nil {
		t.Fatal(err)
	}
	wantText := "SUMMARY\n\n<read-files>\nd.go\n</read-files>\n\n<modified-files>\na.go\nb.go\nc.go\n</modified-files>"
	if r2.Summary != wantText || !reflect.DeepEqual(r2.Details, want2) {
		t.Fatalf("summary %q details %+v", r2.Summary, r2.Details)
	}
}
