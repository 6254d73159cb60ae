package sessiongen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// Options configures Write.
type Options struct {
	// Bytes is the approximate size of the file to write.
	Bytes int64
	// Seed makes the output reproducible.
	Seed uint64
	// Cwd goes in the header.
	Cwd string
	// CompactEvery is the approximate number of bytes of conversation
	// between compactions (the context a model window holds); 0 means
	// never compact, so the whole branch is in the context.
	CompactEvery int64
	// BranchEvery is the number of turns between abandoned branches (0: none).
	BranchEvery int
	// ShortTurns writes short shell turns instead of file-reading ones: a
	// user prompt, one assistant bash call, its output (numbers and code,
	// about 2 KB) and a short answer, four entries and about 3.8 KB a turn,
	// so 133 MB hold about 35k turns and 140k entries. With CompactEvery
	// and BranchEvery 0 the file is one chain.
	ShortTurns bool
	// Usage, if set, is the input tokens every assistant message records
	// (instead of 20k-100k at random): a low figure makes a session whose
	// recorded usage is far below its real size.
	Usage int
}

// Stats describes what Write produced.
type Stats struct {
	Bytes, Entries, Turns, Compactions, Branches int64
}

type gen struct {
	w     *bufio.Writer
	r     *rand.Rand
	ids   map[string]bool
	leaf  string
	t     time.Time
	st    Stats
	since int64 // bytes since the last compaction
	usage int   // fixed recorded input tokens, 0 = random
}

// Write writes one session to w.
func Write(w io.Writer, opts Options) (Stats, error) {
	g := &gen{usage: opts.Usage, w: bufio.NewWriterSize(w, 1<<20), r: rand.New(rand.NewPCG(opts.Seed, 7)), ids: map[string]bool{},
		t: time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)}
	if opts.Cwd == "" {
		opts.Cwd = "/home/dev/project"
	}
	g.header(opts.Cwd)
	g.entry("model_change", map[string]any{"provider": "openai", "modelId": "gpt-4.1"})
	g.entry("thinking_level_change", map[string]any{"thinkingLevel": "medium"})
	var turnStarts []string
	for g.st.Bytes < opts.Bytes {
		g.st.Turns++
		var start string
		if opts.ShortTurns {
			start = g.shortTurn()
		} else {
			start = g.turn()
		}
		turnStarts = append(turnStarts, start)
		if opts.CompactEvery > 0 && g.since > opts.CompactEvery && len(turnStarts) > 4 {
			kept := turnStarts[len(turnStarts)-3]
			g.entry("compaction", map[string]any{"summary": g.prose(1500), "firstKeptEntryId": kept, "tokensBefore": g.since / 4,
				"details": map[string]any{"readFiles": []string{"src/a.go", "src/b.go"}, "modifiedFiles": []string{"src/a.go"}}})
			g.since = 0
			g.st.Compactions++
		}
		if opts.BranchEvery > 0 && g.st.Turns%int64(opts.BranchEvery) == 0 && len(turnStarts) > 2 {
			// Abandon the last turn: go back to before it and summarise it.
			abandoned := g.leaf
			g.leaf = turnStarts[len(turnStarts)-2]
			g.entry("branch_summary", map[string]any{"fromId": abandoned, "summary": g.prose(400)})
			g.st.Branches++
		}
		switch g.st.Turns % 37 {
		case 5:
			g.entry("custom", map[string]any{"customType": "pi-lsp/state", "data": map[string]any{"mode": "build", "tokens": g.st.Bytes / 4}})
		case 11:
			g.entry("label", map[string]any{"targetId": start, "label": fmt.Sprintf("checkpoint %d", g.st.Turns)})
		case 23:
			g.entry("thinking_level_change", map[string]any{"thinkingLevel": []string{"low", "medium", "high"}[g.r.IntN(3)]})
		}
	}
	if err := g.w.Flush(); err != nil {
		return g.st, fmt.Errorf("sessiongen: %w", err)
	}
	return g.st, nil
}

// turn writes one agent turn and returns the id of its user message.
func (g *gen) turn() string {
	start := g.message(map[string]any{"role": "user", "content": []any{text(g.prose(80 + g.r.IntN(400)))}, "timestamp": g.ms()})
	for step := range 1 + g.r.IntN(4) {
		var calls []any
		content := []any{map[string]any{"type": "thinking", "thinking": g.prose(200 + g.r.IntN(600))}}
		for c := range 1 + g.r.IntN(2) {
			calls = append(calls, map[string]any{"type": "toolCall", "id": fmt.Sprintf("call_%d_%d_%d", g.st.Turns, step, c), "name": "read",
				"arguments": map[string]any{"path": fmt.Sprintf("src/pkg%d/file%d.go", g.r.IntN(40), g.r.IntN(200))}})
		}
		content = append(content, calls...)
		g.message(g.assistant(content, "toolUse"))
		for _, c := range calls {
			call := c.(map[string]any)
			g.message(map[string]any{"role": "toolResult", "toolCallId": call["id"], "toolName": "read",
				"content": []any{text(g.code(1500 + g.r.IntN(14000)))}, "isError": false, "timestamp": g.ms()})
		}
	}
	g.message(g.assistant([]any{text(g.prose(300 + g.r.IntN(1500)))}, "stop"))
	return start
}

// shortTurn writes one short shell turn and returns the id of its user
// message.
func (g *gen) shortTurn() string {
	start := g.message(map[string]any{"role": "user", "content": []any{text(g.prose(60 + g.r.IntN(200)))}, "timestamp": g.ms()})
	id := fmt.Sprintf("call_%d", g.st.Turns)
	n := 200 + g.r.IntN(400)
	g.message(g.assistant([]any{text(g.prose(40 + g.r.IntN(120))),
		map[string]any{"type": "toolCall", "id": id, "name": "bash", "arguments": map[string]any{"command": fmt.Sprintf("seq 1 %d", n)}}}, "toolUse"))
	var out strings.Builder
	if g.r.IntN(2) == 0 {
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&out, "%d\n", i)
		}
	} else {
		out.WriteString(g.code(600 + g.r.IntN(2000)))
	}
	g.message(map[string]any{"role": "toolResult", "toolCallId": id, "toolName": "bash",
		"content": []any{text(out.String())}, "isError": false, "timestamp": g.ms()})
	g.message(g.assistant([]any{text(g.prose(100 + g.r.IntN(440)))}, "stop"))
	return start
}

func (g *gen) assistant(content []any, stop string) map[string]any {
	in, out := 20000+g.r.IntN(80000), 200+g.r.IntN(2000)
	if g.usage > 0 {
		in = g.usage
	}
	return map[string]any{"role": "assistant", "content": content, "api": "openai-completions", "provider": "openai", "model": "gpt-4.1",
		"usage": map[string]any{"input": in, "output": out, "cacheRead": 0, "cacheWrite": 0, "totalTokens": in + out,
			"cost": map[string]any{"input": 0.01, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.03}},
		"stopReason": stop, "timestamp": g.ms()}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func (g *gen) message(m map[string]any) string {
	return g.entry("message", map[string]any{"message": m})
}

// entry writes an entry as a child of the leaf, with pi's key order.
func (g *gen) entry(typ string, fields map[string]any) string {
	id := g.id()
	var parent any
	if g.leaf != "" {
		parent = g.leaf
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":%q,"id":%q,"parentId":%s,"timestamp":%q`, typ, id, mustJSON(parent), g.ts())
	for _, k := range sortedKeys(fields) {
		fmt.Fprintf(&b, `,%q:%s`, k, mustJSON(fields[k]))
	}
	b.WriteString("}\n")
	g.w.WriteString(b.String())
	n := int64(b.Len())
	g.st.Bytes += n
	g.since += n
	g.st.Entries++
	g.leaf = id
	return id
}

func (g *gen) header(cwd string) {
	b := fmt.Sprintf(`{"type":"session","version":3,"id":"0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","timestamp":%q,"cwd":%s}`+"\n", g.ts(), mustJSON(cwd))
	g.w.WriteString(b)
	g.st.Bytes += int64(len(b))
}

func (g *gen) id() string {
	for {
		id := fmt.Sprintf("%08x", g.r.Uint32())
		if !g.ids[id] {
			g.ids[id] = true
			return id
		}
	}
}

func (g *gen) ts() string {
	g.t = g.t.Add(time.Duration(200+g.r.IntN(4000)) * time.Millisecond)
	return g.t.Format("2006-01-02T15:04:05.000Z")
}

func (g *gen) ms() int64 { return g.t.UnixMilli() }

var words = strings.Fields(`the session tree keeps every step append only so a crash never loses more than the line being written
compaction replaces old history with a summary while branches let the user go back and try another approach
naïve café größe 日本語 テスト emoji 🚀 “quoted” <tag> & ampersand`)

func (g *gen) prose(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[g.r.IntN(len(words))])
		if g.r.IntN(12) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

var codeLines = []string{
	"package main", "", "import (", "\t\"fmt\"", "\t\"strings\"", ")", "",
	"// Handler serves \"requests\" with a \\backslash\\ in the comment.",
	"func (s *Server) Handle(w http.ResponseWriter, r *http.Request) {",
	"\tif err := s.check(r); err != nil {", "\t\thttp.Error(w, fmt.Sprintf(\"bad: %v\", err), 400)", "\t\treturn", "\t}",
	"\tfor i, v := range strings.Split(r.URL.Path, \"/\") {", "\t\ts.log.Printf(\"%d=%q\", i, v)", "\t}", "}",
}

func (g *gen) code(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%d\t%s\n", i, codeLines[g.r.IntN(len(codeLines))])
	}
	return b.String()
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps, slices, strings and numbers are encoded
	}
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	order := []string{"provider", "modelId", "thinkingLevel", "fromId", "summary", "firstKeptEntryId", "tokensBefore", "details", "customType", "data", "targetId", "label", "message"}
	var out []string
	for _, k := range order {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	return out
}
