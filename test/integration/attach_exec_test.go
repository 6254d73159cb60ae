package integration

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// syncBuffer is a strings.Builder safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (e *env) command(extra []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binPath, args...)
	cmd.Dir = e.workspace
	cmd.Env = append(os.Environ(), "HOME="+e.home, "PI_LSP_MODELS="+e.models, "PI_LSP_SESSIONS="+e.sessions, "OPENAI_API_KEY=")
	cmd.Env = append(cmd.Env, extra...)
	return cmd
}

// pi-lsp exec --session runs its prompt in the owner of a live session (the
// owner writes it, its client sees it), and opens an idle session itself.
// pi-lsp attach follows the session read-only while the owner's client
// prompts.
func TestExecSessionAndAttachCommand(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "from exec", Text: "exec answered"},
		{Match: "followed", Text: "the follower saw this"},
		{Match: "after the owner", Text: "exec ran alone"},
		{Text: "hi", Repeat: true},
	})
	rt := runtimeDir(t)
	owner := e.start(startOpt{extraEnv: rt})
	owner.prompt("make a session")
	owner.waitIdle()
	path := owner.state().Path

	follow := e.command(rt, "attach", path)
	var fout, ferr syncBuffer
	follow.Stdout, follow.Stderr = &fout, &ferr
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	// It prints the transcript so far once attached.
	owner.waitFor("the follower", func() bool {
		return strings.Contains(ferr.String(), "attached to pid") && strings.Contains(fout.String(), "make a session")
	})

	out, err := e.command(rt, "exec", "--session", path, "from exec").CombinedOutput()
	if err != nil {
		t.Fatalf("exec --session: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "exec answered") || !strings.Contains(string(out), "attached to pid") {
		t.Fatalf("exec --session output:\n%s", out)
	}
	if n := userMessages(t, path, "from exec"); n != 1 {
		t.Fatalf("exec's prompt is in the file %d times", n)
	}
	owner.waitFor("the owner's display", func() bool {
		v, err := owner.Display()
		return err == nil && strings.Contains(mustJSON(v.State), "exec answered")
	})

	owner.prompt("followed by attach")
	owner.waitIdle()
	owner.waitFor("pi-lsp attach to print the run", func() bool {
		o := fout.String()
		return strings.Contains(o, "> followed by attach") && strings.Contains(o, "the follower saw this")
	})

	// The owner leaves: nobody can take over from a follower, which ends.
	owner.call("shutdown", nil, nil)
	_ = owner.Notify("exit", nil)
	waitExit(t, owner, 0)
	done := make(chan error, 1)
	go func() { done <- follow.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("pi-lsp attach: %v\n%s", err, ferr.String())
		}
	case <-time.After(30 * time.Second):
		_ = follow.Process.Kill()
		t.Fatal("pi-lsp attach did not end with the session")
	}

	// Nobody owns the session now: exec --session opens it itself.
	out, err = e.command(rt, "exec", "--session", path, "after the owner").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "exec ran alone") || strings.Contains(string(out), "attached to pid") {
		t.Fatalf("exec --session alone: %v\n%s", err, out)
	}
	if n := userMessages(t, path, "after the owner"); n != 1 {
		t.Fatalf("exec's own prompt is in the file %d times", n)
	}
}
