package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/attach"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/tools"
)

// ownerWait bounds how long a command waits for the owner of a locked
// session to answer on its socket.
const ownerWait = 5 * time.Second

// openOrAttach opens the session at path in h, or — when another pi-lsp
// owns it — runs prompt in the owner over its socket, feeding show the
// owner's events until the run ends (attached is then true).
func openOrAttach(ctx context.Context, h *harness.Harness, path, prompt string, show func(harness.Event), stderr io.Writer) (attached bool, err error) {
	deadline := time.Now().Add(ownerWait)
	for {
		_, err := h.OpenSession(ctx, path)
		var locked *session.LockedError
		if !errors.As(err, &locked) {
			return false, err
		}
		err = execAttached(ctx, path, prompt, show, stderr)
		if !errors.Is(err, attach.ErrNoOwner) || time.Now().After(deadline) {
			return true, err
		}
		time.Sleep(50 * time.Millisecond) // the owner is starting, or has just died
	}
}

// execAttached sends prompt to the owner of path and waits for the end of
// the run.
func execAttached(ctx context.Context, path, prompt string, show func(harness.Event), stderr io.Writer) error {
	ended := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	prompted := false
	sc, err := attach.DialSession(ctx, path, rpc.ClientInfo{Name: "pi-lsp exec", Version: version},
		rpc.ClientCapabilities{HarnessEvents: true}, func(method string, params json.RawMessage) {
			ev, ok := harnessEvent(method, params)
			if !ok {
				return
			}
			mu.Lock()
			p := prompted
			mu.Unlock()
			if !p {
				return
			}
			show(ev)
			if ev.Type == harness.EvAgentEnd {
				once.Do(func() { close(ended) })
			}
		})
	if err != nil {
		return err
	}
	defer sc.Close()
	fmt.Fprintf(stderr, "attached to pid %d\n", sc.OwnerPID())
	mu.Lock()
	prompted = true
	mu.Unlock()
	if err := sc.Call(ctx, "agent/prompt", map[string]any{"text": prompt}, nil); err != nil {
		return err
	}
	select {
	case <-ended:
	case <-sc.Done():
		return fmt.Errorf("the owner of %s (pid %d) went away during the run", path, sc.OwnerPID())
	case <-ctx.Done():
		_ = sc.Call(context.Background(), "agent/abort", nil, nil)
		show(harness.Event{Type: harness.EvAgentEnd, Reason: "aborted"})
	}
	fmt.Fprintf(stderr, "session: %s\n", path)
	return nil
}

func harnessEvent(method string, params json.RawMessage) (harness.Event, bool) {
	if method != "harness/event" {
		return harness.Event{}, false
	}
	var w struct {
		Event harness.Event `json:"event"`
	}
	if err := json.Unmarshal(params, &w); err != nil {
		return harness.Event{}, false
	}
	return w.Event, true
}

// runAttach is `pi-lsp attach FILE`: it follows a live session read-only,
// printing its transcript and then every run as it streams, until the
// session is closed (it follows a hand-over to the next owner).
func runAttach(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("attach", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: pi-lsp attach SESSION_FILE")
		return 2
	}
	path := fs.Arg(0)
	red := tools.NewRedactor(os.Environ())
	var mu sync.Mutex
	lastWasText := false
	show := func(ev harness.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Type {
		case harness.EvMessageStart:
			if ev.Message != nil && ev.Message.Role == llm.RoleUser {
				fmt.Fprintf(stdout, "\n> %s\n\n", red.Redact(ev.Message.Text()))
			}
		case harness.EvMessageUpdate:
			if ev.DeltaKind == "text" {
				fmt.Fprint(stdout, red.Redact(ev.Delta))
				lastWasText = true
			}
		case harness.EvToolStart:
			if lastWasText {
				fmt.Fprintln(stdout)
				lastWasText = false
			}
			fmt.Fprintf(stdout, "→ %s %s\n", ev.ToolName, truncateLine(red.Redact(string(ev.Args)), 160))
		case harness.EvAgentEnd:
			if lastWasText {
				fmt.Fprintln(stdout)
				lastWasText = false
			}
		}
	}
	first := true
	deadline := time.Now().Add(ownerWait)
	for ctx.Err() == nil {
		sc, err := attach.DialSession(ctx, path, rpc.ClientInfo{Name: "pi-lsp attach", Version: version},
			rpc.ClientCapabilities{HarnessEvents: true}, func(method string, params json.RawMessage) {
				if ev, ok := harnessEvent(method, params); ok {
					show(ev)
				}
			})
		if err != nil {
			if errors.Is(err, attach.ErrNoOwner) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			if first {
				fmt.Fprintf(stderr, "pi-lsp attach: %v\n", err)
				return 1
			}
			fmt.Fprintln(stderr, "the session is no longer open")
			return 0
		}
		fmt.Fprintf(stderr, "attached to pid %d (read-only)\n", sc.OwnerPID())
		if first {
			var ex struct {
				Text string `json:"text"`
			}
			if err := sc.Call(ctx, "session/export", map[string]any{"format": "markdown"}, &ex); err == nil {
				fmt.Fprint(stdout, ex.Text)
			}
			first = false
		}
		select {
		case <-sc.Done():
			// The owner left: follow the session to its next owner.
			deadline = time.Now().Add(ownerWait)
		case <-ctx.Done():
		}
		_ = sc.Close()
	}
	return 0
}
