package integration

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// TestContextFilesAskTheEditorOnlyForWorkspaceFiles: a client that serves
// fs/readTextFile is asked for the workspace's AGENTS.md alone (its unsaved
// text wins), never for a file that does not exist nor for a path outside
// the workspace; the agent directory's AGENTS.md still reaches the model,
// read from the disk.
func TestContextFilesAskTheEditorOnlyForWorkspaceFiles(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "one"}, {Text: "two"}, {Text: "three"}})
	inside := filepath.Join(e.workspace, "AGENTS.md")
	writeFile(t, inside, "saved project rules\n")
	writeFile(t, filepath.Join(e.home, ".pi", "agent", "AGENTS.md"), "global rules from home\n")
	s := e.start(startOpt{caps: map[string]any{"fs": map[string]any{"readTextFile": true}}})
	var mu sync.Mutex
	var asked []string
	s.Handle("fs/readTextFile", func(_ context.Context, params json.RawMessage) (any, error) {
		var p struct{ Path string }
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		asked = append(asked, p.Path)
		mu.Unlock()
		if p.Path == inside {
			return map[string]any{"text": "UNSAVED project rules\n"}, nil
		}
		return nil, errors.New("no such buffer")
	})
	for _, p := range []string{"first", "second", "third"} {
		s.prompt(p)
		s.waitIdle()
	}
	body := lastRequest(t, e)
	for _, want := range []string{"UNSAVED project rules", "global rules from home"} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %q", want)
		}
	}
	if strings.Contains(body, "saved project rules") {
		t.Errorf("the disk's AGENTS.md was used over the editor's buffer")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) == 0 {
		t.Fatal("the editor was never asked for the workspace's AGENTS.md")
	}
	for _, p := range asked {
		if p != inside {
			t.Errorf("fs/readTextFile %s: not the workspace's context file", p)
		}
	}
	// One lookup per run, not per request.
	if len(asked) > 3 {
		t.Errorf("%d fs/readTextFile for 3 runs: %v", len(asked), asked)
	}
}
