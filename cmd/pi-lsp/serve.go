package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/server"
	"github.com/pi-lsp/pi-lsp/tools"
)

// spillMaxAge is the age beyond which bash spill files are removed at
// start-up.
const spillMaxAge = 7 * 24 * time.Hour

// runServe serves the native protocol on stdin/stdout until exit, EOF or
// the parent process dies. stdout carries only protocol frames.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := c.checkFlags(); err != nil {
		fmt.Fprintf(stderr, "pi-lsp: %v\n", err)
		return 2
	}
	log := newLogger(stderr, c.logLevel)
	if stop := startCPUProfile(log); stop != nil {
		defer stop()
	}
	if n := tools.CleanSpills(spillMaxAge); n > 0 {
		log.Info("removed old bash output files", "count", n)
	}
	reg := c.registry(log)
	// auth.json's keys are secrets too.
	red := tools.NewRedactor(append(os.Environ(), c.auth(log).Secrets()...))
	setLogMask(log, red)
	srv := server.NewAgentServer(server.AgentOptions{
		Name: "pi-lsp", Version: version, Logger: log,
		Masker:       red,
		SessionsRoot: c.root(),
		NewHarness: func(cwd string, buffers env.BufferReader, writes env.BufferWriter) (*harness.Harness, error) {
			return c.newHarness(log, reg, cwd, buffers, writes)
		},
		Models: func(ctx context.Context) ([]server.ModelEntry, error) {
			infos, err := reg.Models(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]server.ModelEntry, 0, len(infos))
			for _, i := range infos {
				out = append(out, server.ModelEntry{Provider: i.Model.Provider, ID: i.Model.ID, Name: i.Model.Name,
					ContextWindow: i.Model.ContextWindow, MaxTokens: i.Model.MaxTokens, Reasoning: i.Model.Reasoning,
					Authenticated: i.Authenticated})
			}
			return out, nil
		},
	})
	err := srv.Serve(ctx, stdin, stdout)
	code := rpc.ExitCode(err)
	if code != 0 && err != nil {
		fmt.Fprintf(stderr, "pi-lsp: %v\n", err)
	}
	return code
}

// startCPUProfile writes a CPU profile of the whole serve to the file
// $PI_LSP_CPUPROFILE names (for `go tool pprof`), and returns the function
// that stops it; nil when the variable is unset or the file cannot be made.
func startCPUProfile(log interface{ Warn(string, ...any) }) func() {
	path := os.Getenv("PI_LSP_CPUPROFILE")
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		log.Warn("cpu profile", "err", err)
		return nil
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Warn("cpu profile", "err", err)
		_ = f.Close()
		return nil
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
