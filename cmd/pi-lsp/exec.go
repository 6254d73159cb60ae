package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/mcp"
	"github.com/pi-lsp/pi-lsp/tools"
)

// runExec is `pi-lsp exec`: one headless run in the current directory. Text
// streams to stdout (or events, one JSON object per line, with --json); the
// run is recorded in a session. Tools that need approval are refused unless
// --yolo: there is nobody to ask.
func runExec(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	asJSON := fs.Bool("json", false, "print one harness event per line")
	sessionPath := fs.String("session", "", "run in this session file (attaching to the pi-lsp that has it open, if any)")
	var gf goalFlags
	gf.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := c.checkFlags(); err != nil {
		fmt.Fprintf(stderr, "pi-lsp: %v\n", err)
		return 2
	}
	tools.CleanSpills(spillMaxAge)
	prompt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	spec, isGoal, err := gf.spec(prompt, *sessionPath)
	if err != nil {
		fmt.Fprintf(stderr, "pi-lsp exec: %v\n", err)
		return 2
	}
	if prompt == "" && !isGoal {
		fmt.Fprintln(stderr, `pi-lsp exec: a prompt is required: pi-lsp exec "fix the failing test"`)
		return 2
	}
	if c.logLevel == "info" {
		c.logLevel = "warn"
	}
	log := newLogger(stderr, c.logLevel)
	h, err := c.newHarness(log, c.registry(log), "", nil, nil)
	if err != nil {
		fmt.Fprintf(stderr, "pi-lsp exec: %v\n", err)
		return 1
	}
	defer h.Close()
	if m := h.MCP(); m != nil {
		// Nobody is at an editor: servers that answer 401 log in at the
		// start through $BROWSER (or a printed URL), and forms are
		// declined unless --yolo and their required fields have defaults.
		m.SetUI(mcp.TerminalUI{Out: stderr, Browser: os.Getenv("BROWSER"), Yolo: c.yolo})
		m.SetAutoLogin(true)
	}

	var mu sync.Mutex
	failed, aborted := false, false
	lastWasText := false
	// stdout and stderr are where exec's data leaves the process, as the
	// wire is for serve: the same masking applies (docs/protocol.md).
	red := tools.NewRedactor(append(os.Environ(), mcpTokens().Secrets()...))
	show := func(ev harness.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Type {
		case harness.EvError:
			failed = true
		case harness.EvAgentEnd:
			if ev.Reason == "error" {
				failed = true
			}
			if ev.Reason == "aborted" {
				aborted = true
			}
		}
		if *asJSON {
			b, err := json.Marshal(ev)
			if err == nil {
				b, err = red.RedactJSON(b, nil)
			}
			if err == nil {
				_, _ = stdout.Write(append(b, '\n'))
			}
			return
		}
		ev = maskText(red, ev)
		switch ev.Type {
		case harness.EvMessageUpdate:
			if ev.DeltaKind == "text" {
				fmt.Fprint(stdout, ev.Delta)
				lastWasText = true
			}
		case harness.EvToolStart:
			if lastWasText {
				fmt.Fprintln(stdout)
				lastWasText = false
			}
			fmt.Fprintf(stderr, "→ %s %s\n", ev.ToolName, truncateLine(string(ev.Args), 160))
		case harness.EvToolEnd:
			if ev.IsError {
				fmt.Fprintf(stderr, "✗ %s: %s\n", ev.ToolName, truncateLine(ev.Output, 300))
			}
		case harness.EvRetryStart:
			fmt.Fprintf(stderr, "retrying in %d ms (attempt %d): %s\n", ev.DelayMs, ev.Attempt, ev.Error)
		case harness.EvError:
			fmt.Fprintf(stderr, "error: %s\n", ev.Error)
		case harness.EvAgentEnd:
			if lastWasText {
				fmt.Fprintln(stdout)
			}
		}
	}
	if *sessionPath != "" {
		attached, err := openOrAttach(ctx, h, *sessionPath, prompt, show, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "pi-lsp exec: %v\n", err)
			return 1
		}
		if attached {
			mu.Lock()
			defer mu.Unlock()
			return exitCode(aborted, failed)
		}
	}
	h.Subscribe(show)
	if isGoal {
		return execGoal(ctx, h, spec, *asJSON, stderr)
	}
	if _, err := h.Prompt(ctx, prompt, harness.PromptOptions{}); err != nil {
		fmt.Fprintf(stderr, "pi-lsp exec: %v\n", err)
		return 1
	}
	waitAbortingOnInterrupt(ctx, h)
	info := h.SessionInfo()
	if !*asJSON {
		fmt.Fprintf(stderr, "session: %s\n", info.Path)
	}
	mu.Lock()
	defer mu.Unlock()
	return exitCode(aborted, failed)
}

func exitCode(aborted, failed bool) int {
	switch {
	case aborted:
		return 130
	case failed:
		return 1
	}
	return 0
}

// maskText masks the event fields the text mode prints.
func maskText(red *tools.Redactor, ev harness.Event) harness.Event {
	ev.Delta = red.Redact(ev.Delta)
	ev.Output = red.Redact(ev.Output)
	ev.Error = red.Redact(ev.Error)
	if args, err := red.RedactJSON(ev.Args, nil); err == nil {
		ev.Args = args
	} else {
		ev.Args = []byte(red.Redact(string(ev.Args)))
	}
	return ev
}

func truncateLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
