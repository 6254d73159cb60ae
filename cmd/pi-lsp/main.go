// Command pi-lsp is a coding-agent harness served to editors over JSON-RPC
// on stdio. Subcommands: serve (the default), acp, exec, attach, sessions, version.
//
// main only parses flags and wires packages together.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/pi-lsp/pi-lsp/env"
)

// version is set at link time (-X main.version=...).
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `pi-lsp — a coding-agent harness for editors

Usage:
  pi-lsp [serve] [flags]            serve the native protocol (LSP-framed JSON-RPC) on stdio
  pi-lsp acp [flags]                serve the Agent Client Protocol (NDJSON) on stdio (Zed, JetBrains, Emacs)
  pi-lsp exec [flags] "prompt"      one headless run in the current directory
  pi-lsp attach SESSION_FILE        follow a live session in the terminal, read-only
  pi-lsp sessions list|show|fork    inspect sessions
  pi-lsp version

Flags (serve, acp, exec):
  --model provider/id    default model
  --skill PATH           extra skill file or directory (repeatable)
  --sessions-dir DIR     where sessions live (default $PI_LSP_SESSIONS or ~/.pi/agent/sessions)
  --cwd DIR              working directory (default the current one)
  --yolo                 approve every tool call inside the workspace that no policy denies
  --root DIR             extra workspace root (repeatable; must exist)
  --allow-outside        let tools reach paths outside the workspace without asking
  --sandbox MODE         sandbox of commands: workspace-write (default) | read-only | off
exec only:
  --json                 print one harness event per line instead of text
  --session FILE         run in this session file; if another pi-lsp has it open, run in that process
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sub := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case env.SandboxExecCommand:
		return runSandboxExec(args)
	case env.JobRunCommand:
		return env.JobRun(args, stderr)
	case "serve":
		return runServe(ctx, args, stdin, stdout, stderr)
	case "acp":
		return runACP(ctx, args, stdin, stdout, stderr)
	case "exec":
		return runExec(ctx, args, stdout, stderr)
	case "attach":
		return runAttach(ctx, args, stdout, stderr)
	case "sessions":
		return RunSessions(ctx, args, stdout, stderr)
	case "version", "--version":
		fmt.Fprintf(stdout, "pi-lsp %s\n", version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "pi-lsp: unknown subcommand %q\n\n%s", sub, usage)
		return 2
	}
}
