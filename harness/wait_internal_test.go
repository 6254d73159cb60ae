package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestWaitForClosedChannel(t *testing.T) {
	done := make(chan struct{})
	close(done)
	if err := waitFor(context.Background(), done, "x"); err != nil {
		t.Fatalf("closed channel: %v", err)
	}
}

func TestWaitForWrapsTheContextError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := waitFor(ctx, make(chan struct{}), "the end checkpoint")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want it to wrap context.Canceled", err)
	}
	if !strings.Contains(err.Error(), "the end checkpoint") {
		t.Fatalf("err = %q, want it to say what was waited for", err)
	}
}
