package harness_test

import (
	"context"
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
