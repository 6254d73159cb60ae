package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

func sessLine(id, parent, role, text string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	extra := ""
	if role == "assistant" {
		extra = `,"provider":"fake","model":"m1","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15},"stopReason":"stop"`
	}
	return fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"%s","content":[{"type":"text","text":"%s"}],"timestamp":1767225600000%s}}`, id, p, role, text, extra)
}

// nineMessages is a session of nine intact messages m1..m9 (user and
// assistant alternating), each line separate.
func nineMessages() []string {
	lines := []string{}
	parent := ""
	for i := 1; i <= 9; i++ {
		role := "user"
		if i%2 == 0 {
			role = "assistant"
		}
		id := fmt.Sprintf("bb00000%d", i)
		lines = append(lines, sessLine(id, parent, role, fmt.Sprintf("intact-%d", i)))
		parent = id
	}
	return lines
}

const corruptHeader = `{"type":"session","version":3,"id":"corrupt-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"CWD"}`

// Each corrupt-session case: nothing is lost (every intact message reaches
// the model), a warning naming the line is sent, session/entries answers,
// and the next prompt works.
func TestCorruptSessionsSurvive(t *testing.T) {
	nine := nineMessages()
	// replace gives the nine messages with line k (1-based message index)
	// rewritten by f.
	replace := func(k int, f func(string) string) []string {
		l := append([]string{}, nine...)
		l[k-1] = f(l[k-1])
		return l
	}
	cases := []struct {
		name  string
		lines []string
		want  []int // intact messages that must reach the model
		warn  string
	}{
		{"usage string", replace(4, func(l string) string {
			return strings.Replace(l, `"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15}`, `"usage":"x"`, 1)
		}), []int{1, 2, 3, 5, 6, 7, 8, 9}, "line 5"},
		{"content number", replace(5, func(l string) string {
			return strings.Replace(l, `[{"type":"text","text":"intact-5"}]`, `5`, 1)
		}), []int{1, 2, 3, 4, 6, 7, 8, 9}, "line 6"},
		{"object timestamp", replace(5, func(l string) string {
			return strings.Replace(l, `"timestamp":1767225600000`, `"timestamp":{"a":1}`, 1)
		}), []int{1, 2, 3, 4, 6, 7, 8, 9}, "line 6"},
		{"torn middle line", func() []string {
			l := append([]string{}, nine...)
			l[4] = l[4][:len(l[4])/2] // message 5 torn: 6 loses its parent
			return l
		}(), []int{1, 2, 3, 4, 6, 7, 8, 9}, "line 6"},
		{"glued lines", func() []string {
			l := append([]string{}, nine...)
			glued := l[3] + l[4]
			return append(append(l[:3:3], glued), l[5:]...)
		}(), []int{1, 2, 3, 4, 5, 6, 7, 8, 9}, "line 5"},
		{"torn then glued", func() []string {
			l := append([]string{}, nine...)
			torn := l[3][:len(l[3])/2] + l[4] // message 4 torn, 5 written right after it
			return append(append(l[:3:3], torn), l[5:]...)
		}(), []int{1, 2, 3, 5, 6, 7, 8, 9}, "line 5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []llmtest.Response{{Match: "next prompt", Text: "answer after corruption"}})
			dir := filepath.Join(e.sessions, "corrupt")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "s.jsonl")
			content := strings.ReplaceAll(corruptHeader, "CWD", e.workspace) + "\n" + strings.Join(tc.lines, "\n") + "\n"
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			s := e.start(startOpt{initOpts: map[string]any{"session": path, "logLevel": "warn"}})
			before := len(s.entries())
			s.prompt("next prompt")
			s.waitIdle()
			got := roles(s.entries())
			if len(got) < 2 || got[len(got)-1] != "assistant:stop" {
				t.Fatalf("the next prompt did not work: %v (before %d)", got, before)
			}
			reqs := e.llm.Requests()
			if len(reqs) != 1 {
				t.Fatalf("model requests: %d", len(reqs))
			}
			for _, i := range tc.want {
				if !strings.Contains(string(reqs[0]), fmt.Sprintf("intact-%d", i)) {
					t.Errorf("intact message %d did not reach the model", i)
				}
			}
			logs := ""
			for _, m := range s.Notifications("window/logMessage") {
				logs += string(m.Params) + "\n"
			}
			if !strings.Contains(logs, tc.warn) {
				t.Errorf("no warning naming %s: %s", tc.warn, logs)
			}
			waitDisplay(s, tc.warn)
			b, _ := os.ReadFile(path)
			if !strings.HasPrefix(string(b), content) {
				t.Error("existing session bytes were changed")
			}
		})
	}
}
