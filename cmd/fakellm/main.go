// Command fakellm runs the scripted fake OpenAI-compatible server of package
// llm/llmtest as a standalone process, for tests written outside Go (Node,
// Neovim) and for trying pi-lsp without a real model.
//
//	fakellm [--addr 127.0.0.1:0] [--script file.json] [--models-json out.json]
//	        [--context-window N] [--no-stdin]
//
// The first line on stdout is "FAKELLM_URL=http://host:port". Chat
// Completions are served at /v1/chat/completions, the recorded request
// bodies at GET /requests, and more responses are appended with POST
// /script. It serves until killed (SIGINT, SIGTERM) or, unless --no-stdin,
// until its stdin is closed. The script format is documented in
// docs/models.md ("Testing with fakellm").
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	scriptPath := fs.String("script", "", "JSON file with the scripted responses (an array)")
	modelsOut := fs.String("models-json", "", "write a models.json for the fake provider to this path")
	contextWindow := fs.Int("context-window", 0, "context window of the model in --models-json (default 128000)")
	noStdin := fs.Bool("no-stdin", false, "do not exit when stdin closes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var script []llmtest.Response
	if *scriptPath != "" {
		data, err := os.ReadFile(*scriptPath)
		if err != nil {
			return fmt.Errorf("script: %w", err)
		}
		if script, err = llmtest.ParseScript(data); err != nil {
			return fmt.Errorf("%s: %w", *scriptPath, err)
		}
	}
	srv, err := llmtest.Start(*addr, script...)
	if err != nil {
		return err
	}
	defer srv.Close()
	if *modelsOut != "" {
		if err := llmtest.WriteModelsJSONFile(*modelsOut, srv.BaseURL(), llmtest.ModelSpec{ContextWindow: *contextWindow}); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(stdout, "FAKELLM_URL=%s\n", srv.URL); err != nil {
		return err
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(stop)
	stdinClosed := make(chan struct{})
	if !*noStdin {
		go func() {
			_, _ = io.Copy(io.Discard, stdin)
			close(stdinClosed)
		}()
	}
	select {
	case <-stop:
	case <-stdinClosed:
	}
	return nil
}
