//go:build unix

package rpc

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

func TestWatchParentSeesProcessExit(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sleep: %v", err)
	}
	gone := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go watchParent(ctx, cmd.Process.Pid, 5*time.Millisecond, func() { close(gone) })
	select {
	case <-gone:
		t.Fatal("reported gone while the process runs")
	case <-time.After(50 * time.Millisecond):
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait() // reaped: kill(pid, 0) now fails
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("process exit not noticed")
	}
}

func TestWatchParentStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		watchParent(ctx, 1, 5*time.Millisecond, func() { t.Error("pid 1 reported gone") })
		close(done)
	}()
	cancel()
	<-done
	WatchParent(context.Background(), 0, func() { t.Error("pid 0 watched") }) // returns at once
}
