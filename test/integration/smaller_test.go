package integration

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// A complete answer (finish_reason and usage) on a stream the provider then
// holds open is accepted, not kept as an error after the idle timeout; so
// is one whose usage never comes (after a short grace).
func TestHeldOpenStreamAccepted(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "with usage", Text: "complete answer", HoldOpenMs: 60_000},
		{Match: "no usage", Text: "answer without usage", HoldOpenMs: 60_000, OmitUsage: true},
	})
	s := e.start(startOpt{})
	for _, p := range []string{"with usage", "no usage"} {
		s.prompt(p)
		s.waitIdle() // fails after 30 s; the idle timeout is 120 s
	}
	got := roles(s.entries())
	want := []string{"user", "assistant:stop", "user", "assistant:stop"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("messages: %v, want %v", got, want)
	}
}

// A request with "id": null gets the invalid-request error with id null,
// and the server keeps serving.
func TestNullIDGetsErrorReply(t *testing.T) {
	e := newEnv(t, nil)
	s := e.start(startOpt{})
	if err := s.WriteRaw(rpctest.Frame([]byte(`{"jsonrpc":"2.0","id":null,"method":"session/state"}`))); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the null-id reply", func() bool {
		for _, r := range s.Unmatched() {
			if string(r.ID) == "null" && r.Error != nil && r.Error.Code == -32600 {
				return true
			}
		}
		return false
	})
	s.state() // still serving
}

// Bash spill files are removed when their session closes, and those older
// than 7 days at start.
func TestBashSpillFilesCleaned(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{bashCall("b1", "seq 1 5000")}},
		{Text: "done"},
	})
	dir := filepath.Join(os.TempDir(), "pi-lsp-"+itoa(os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "pi-bash-old-"+filepath.Base(e.workspace)+itoa(os.Getpid())+".log")
	fresh := filepath.Join(dir, "pi-bash-fresh-"+itoa(os.Getpid())+".log")
	for _, p := range []string{old, fresh} {
		writeFile(t, p, "x\n")
		t.Cleanup(func() { os.Remove(p) })
	}
	week := time.Now().Add(-8 * 24 * time.Hour)
	if err := os.Chtimes(old, week, week); err != nil {
		t.Fatal(err)
	}
	s := e.start(startOpt{args: []string{"--yolo"}})
	if _, err := os.Stat(old); err == nil {
		t.Fatal("a spill file older than 7 days survived start-up")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatal("a fresh spill file was removed at start-up")
	}
	s.prompt("count")
	s.waitIdle()
	res := toolResults(s)
	i := strings.Index(res[0], "Full output: ")
	if i < 0 {
		t.Fatalf("no spill file: %q", res[0])
	}
	spill := strings.TrimSuffix(strings.Fields(res[0][i+len("Full output: "):])[0], "]")
	if _, err := os.Stat(spill); err != nil {
		t.Fatalf("spill file %s: %v", spill, err)
	}
	s.call("session/new", map[string]any{}, nil)
	if _, err := os.Stat(spill); err == nil {
		t.Fatal("the spill file survived its session")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
