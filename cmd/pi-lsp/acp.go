package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pi-lsp/pi-lsp/acp"
	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/tools"
)

// runACP serves the Agent Client Protocol on stdin/stdout (NDJSON) until
// stdin ends. stdout carries only protocol lines; logs go to stderr.
func runACP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := newLogger(stderr, c.logLevel)
	reg := c.registry(log)
	environ := append(os.Environ(), c.auth(log).Secrets()...)
	setLogMask(log, tools.NewRedactor(environ))
	err := acp.Serve(ctx, acp.Options{
		Name: "pi-lsp", Version: version, Logger: log,
		SessionsRoot: c.root(),
		Environ:      environ,
		NewHarness: func(cwd string, wrap func(env.Env) env.Env) (*harness.Harness, error) {
			return c.newHarnessEnv(log, reg, cwd, wrap)
		},
		Models: func(ctx context.Context) ([]acp.Model, error) {
			infos, err := reg.Models(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]acp.Model, 0, len(infos))
			for _, i := range infos {
				out = append(out, acp.Model{Ref: i.Model.Ref(), Name: i.Model.Name})
			}
			return out, nil
		},
	}, stdin, stdout)
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "pi-lsp acp: %v\n", err)
		return 1
	}
	return 0
}
