package harness_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestAbortStopsAUserCommand(t *testing.T) {
	f := newFixture(t, nil)
	done := make(chan error, 1)
	go func() {
		r, err := f.h.Bash(context.Background(), "sleep 30", false)
		if err == nil && !r.Cancelled {
			t.Errorf("the command was not reported cancelled: %+v", r)
		}
		done <- err
	}()
	// Abort until the command ends: the first calls may come before it started.
	deadline := time.After(10 * time.Second)
	for {
		f.h.Abort()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("bash: %v", err)
			}
			return
		case <-deadline:
			t.Fatal("agent abort did not stop the user command")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func TestUserCommandOutputIsCutLikeTheBashTool(t *testing.T) {
	f := newFixture(t, nil)
	r, err := f.h.Bash(context.Background(), "seq 1 5000", true)
	if err != nil {
		t.Fatal(err)
	}
	// The last 2000 lines are kept; the whole output is in the file.
	if !r.Truncated || !strings.HasPrefix(r.Output, "3001\n") || !strings.HasSuffix(strings.TrimSpace(r.Output), "\n5000") {
		t.Fatalf("output not cut to its last 2000 lines: truncated=%v %q…", r.Truncated, r.Output[:min(20, len(r.Output))])
	}
	full, err := os.ReadFile(r.FullOutputPath)
	if err != nil {
		t.Fatalf("full output: %v", err)
	}
	if n := strings.Count(string(full), "\n"); n != 5000 {
		t.Fatalf("full output has %d lines", n)
	}
	small, err := f.h.Bash(context.Background(), "echo hi", true)
	if err != nil || small.Truncated || small.FullOutputPath != "" || small.Output != "hi\n" {
		t.Fatalf("small output: %+v %v", small, err)
	}
}
