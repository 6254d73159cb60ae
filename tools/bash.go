package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/env"
)

// updateEvery throttles streamed partial output (pi: 100 ms).
const updateEvery = 100 * time.Millisecond

const bashSchema = `{"type":"object","properties":{` +
	`"command":{"type":"string","description":"Bash command to execute"},` +
	`"timeout":{"type":"number","description":"Timeout in seconds (optional, no default timeout)"},` +
	`"background":{"type":"boolean","description":"Run in the background and return at once with a job id; read it with job_output, stop it with job_kill"}},` +
	`"required":["command"]}`

func bashTool() Tool {
	desc := fmt.Sprintf("Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last %d lines or %dKB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds. With background: true the command runs on as a job (job-N) and the call returns at once: use it for dev servers, watchers and long test suites.", DefaultMaxLines, DefaultMaxBytes/1024)
	return newTool("bash", desc, CategoryExecute, bashSchema, runBash)
}

type bashArgs struct {
	Command string   `json:"command"`
	Timeout optFloat `json:"timeout"`
	// Background starts the command as a job of the session (jobs.go).
	Background optBool `json:"background"`
}

type bashDetails struct {
	Truncation     *Truncation `json:"truncation,omitempty"`
	FullOutputPath string      `json:"fullOutputPath,omitempty"`
	// SandboxDenied is set when a sandboxed command failed with a
	// permission error (most likely the sandbox's refusal).
	SandboxDenied bool `json:"sandboxDenied,omitempty"`
	ExitCode      *int `json:"exitCode,omitempty"`
	Cancelled     bool `json:"cancelled,omitempty"`
	TimedOut      bool `json:"timedOut,omitempty"`
}

func runBash(ctx context.Context, call Call, x Exec) Result {
	var a bashArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("bash", err)
	}
	if strings.TrimSpace(a.Command) == "" {
		return errorResult("bash: command is required")
	}
	req := env.ExecRequest{Command: a.Command}
	if a.Background {
		return startBackground(ctx, x, req)
	}
	if a.Timeout.Set && a.Timeout.V > 0 {
		req.Timeout = time.Duration(a.Timeout.V * float64(time.Second))
	}

	out := newOutputTail(DefaultMaxLines, DefaultMaxBytes)
	defer out.close()
	var mu sync.Mutex
	dirty := false
	stopUpdates := startUpdates(x, func() (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		if !dirty {
			return "", false
		}
		dirty = false
		text, _ := out.snapshot()
		return text, true
	})
	res, execErr := x.Env.Exec(ctx, req, func(p []byte) {
		mu.Lock()
		out.write(p)
		dirty = true
		mu.Unlock()
	})
	stopUpdates()

	mu.Lock()
	text, tr := out.snapshot()
	lastLine := out.lastLine
	path := out.path
	mu.Unlock()

	d := bashDetails{}
	if tr.Truncated {
		d.Truncation, d.FullOutputPath = &tr, path
		first := tr.TotalLines - tr.OutputLines + 1
		where := "Full output: " + path
		if path == "" {
			where = "Full output could not be saved"
		}
		switch {
		case tr.LastLinePartial:
			text += fmt.Sprintf("\n\n[Showing last %s of line %d (line is %s). %s]", formatSize(tr.OutputBytes), tr.TotalLines, formatSize(lastLine), where)
		case tr.TruncatedBy == "lines":
			text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. %s]", first, tr.TotalLines, tr.TotalLines, where)
		default:
			text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d (%s limit). %s]", first, tr.TotalLines, tr.TotalLines, formatSize(DefaultMaxBytes), where)
		}
	}
	status := func(s string) string {
		if text == "" {
			return s
		}
		return text + "\n\n" + s
	}
	if execErr != nil {
		switch env.CodeOf(execErr) {
		case env.CodeAborted:
			d.Cancelled = true
			return withDetails(errorResult(status("Command aborted")), d)
		case env.CodeTimeout:
			d.TimedOut = true
			return withDetails(errorResult(status(fmt.Sprintf("Command timed out after %s seconds", trimFloat(a.Timeout.V)))), d)
		default:
			return withDetails(errorResult(status(fmt.Sprintf("Command failed to run: %v", execErr))), d)
		}
	}
	code := res.ExitCode
	d.ExitCode = &code
	if code != 0 {
		msg := fmt.Sprintf("Command exited with code %d", code)
		if res.Sandboxed != "" && env.LooksDenied(text) {
			d.SandboxDenied = true
			msg += "\n\n" + env.SandboxRefusalHint(res.Sandboxed)
		}
		return withDetails(errorResult(status(msg)), d)
	}
	if text == "" {
		text = "(no output)"
	}
	return withDetails(textResult(text), d)
}

// startUpdates sends x.Update the latest partial output at most
// every updateEvery while the command runs. The returned stop waits for the
// sender to finish, so Update is never called after it returns.
func startUpdates(x Exec, next func() (string, bool)) (stop func()) {
	if x.Update == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(updateEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if text, ok := next(); ok {
					x.Update(text)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}
