package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// checkpointWorkspace makes n files of about 1.5 KB in 1,000 folders, a
// .gitignore and 200 ignored build outputs, aged past the stat cache's
// racy window as a real checkout's are (the same tree as
// checkpoint.BenchmarkCheckpoint).
func checkpointWorkspace(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	put := func(rel, body string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	put(".gitignore", "build/\n*.o\n")
	for i := range n {
		body := fmt.Sprintf("package p%d\n\n// file %d\n", i%50, i)
		for len(body) < 1500 {
			body += "func f() int { return 42 } // padding padding padding\n"
		}
		put(fmt.Sprintf("pkg%02d/sub%02d/file%05d.go", i%50, (i/50)%20, i), body)
	}
	for i := range 200 {
		put(fmt.Sprintf("build/obj%03d.o", i), "object")
	}
	old := time.Now().Add(-time.Hour)
	_ = filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	return root
}

// BenchmarkCheckpointTurn measures what checkpoints add to a turn on an
// unchanged 20,000-file workspace (issue 28): whole turns through the real
// harness (Prompt to Wait: the fake model over HTTP asks for a read, the
// read runs, the model answers) with checkpoints on and with
// checkpoints.enabled false, in the same run on the same workspace. The
// added cost is on minus off.
//
// ttft is the fake model's time to first token on each of the turn's two
// requests: 0 puts the whole run-start checkpoint on the turn's path (it
// can only overlap the HTTP round trip); 300ms is a fast real model, which
// the checkpoint overlaps. hashes/op must be 0: no unchanged file is read.
// cpu-ms/op is the process's CPU time (user + system) per turn, which the
// machine's load inflates far less than the wall time: on an idle 2-core
// machine the walk's share of a turn is about its CPU time over 2.
//
// The roots=2 cases add an unchanged extra root (--root) of 5,000 files:
// its own store, walked in parallel with the main root's.
func BenchmarkCheckpointTurn(b *testing.B) {
	b.Setenv("HOME", b.TempDir()) // no global excludes of the machine
	b.Setenv("XDG_CONFIG_HOME", "")
	ws := checkpointWorkspace(b, 20000)
	ckDir := b.TempDir() // one store: the first checkpoint is taken once
	var lib string       // the extra root, made once when a case needs it
	for _, c := range []struct {
		write, pause bool
		ttft         int
		roots        int
	}{{false, false, 0, 1}, {false, false, 300, 1}, {true, false, 0, 1}, {true, true, 0, 1}, {false, false, 0, 2}, {true, false, 0, 2}} {
		ttft := c.ttft
		for _, on := range []bool{false, true} {
			name := fmt.Sprintf("ttft=%dms/checkpoints=off", ttft)
			if on {
				name = fmt.Sprintf("ttft=%dms/checkpoints=on", ttft)
			}
			if c.write {
				name = "write/" + name
			}
			if c.pause {
				// Between turns the user reads the answer and types: the
				// end checkpoint runs then, off the clock (it is off the
				// turn's path unless the next prompt comes within a walk).
				name = "write-paused/" + strings.TrimPrefix(name, "write/")
			}
			var roots []string
			if c.roots == 2 {
				if lib == "" {
					lib = checkpointWorkspace(b, 5000)
				}
				roots = []string{lib}
				name = "roots=2/" + name
			}
			b.Run(name, func(b *testing.B) {
				srv := llmtest.NewServer(b)
				model := llm.Model{ID: "m", Name: "M", Provider: "fake", API: "openai-completions", BaseURL: srv.BaseURL(),
					ContextWindow: 200000, MaxTokens: 4096, APIKey: "fake-key"}
				out := b.TempDir()
				ck := CheckpointSettings{Disabled: !on, Dir: ckDir}
				h := New(Config{
					Env:          env.NewLocal(ws),
					Models:       benchModels{model},
					Streamer:     llm.NewClient(llm.ClientOptions{RetryBaseDelay: time.Millisecond, MaxRetries: 1}),
					SessionsRoot: filepath.Join(out, "sessions"),
					AgentDir:     filepath.Join(out, "agent"),
					Yolo:         true,
					Checkpoints:  ck,
					Roots:        roots,
				})
				b.Cleanup(func() { _ = h.Close() })
				turns := 0
				turn := func() {
					// Each turn's two answers, consumed in order: a read, then
					// (matched by this turn's call id) a short answer.
					turns++
					id := fmt.Sprintf("call_read_%03d", turns)
					call := llmtest.ToolCall{ID: id, Name: "read", Arguments: `{"path":"pkg07/sub03/file01057.go"}`}
					if c.write {
						// A turn that changes one file: its end checkpoint
						// is taken in the background.
						call = llmtest.ToolCall{ID: id, Name: "write", Arguments: fmt.Sprintf(`{"path":"pkg07/sub01/file01057.go","content":"package p7\n// turn %d\n"}`, turns)}
					}
					srv.Append(
						llmtest.Response{StallMs: ttft, ToolCalls: []llmtest.ToolCall{call}},
						llmtest.Response{Match: `"` + id + `"`, Text: "It is a Go file.", StallMs: ttft},
					)
					ctx := context.Background()
					if _, err := h.Prompt(ctx, "What is in pkg07/sub03/file01057.go?", PromptOptions{}); err != nil {
						b.Fatal(err)
					}
					ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
					defer cancel()
					if err := h.Wait(ctx); err != nil {
						b.Fatal(err)
					}
					if c.pause {
						b.StopTimer()
						_ = h.settleCheckpoint(ctx)
						b.StartTimer()
					}
				}
				turn() // the first checkpoint of the workspace, and warm caches
				if n := len(srv.Requests()); n != 2 {
					b.Fatalf("the warm-up turn made %d model requests, want 2 (read, answer)", n)
				}
				var before, written int64
				if on {
					if len(h.ck.stores) != c.roots {
						b.Fatalf("checkpoints on: %d stores opened, want %d", len(h.ck.stores), c.roots)
					}
					_ = h.settleCheckpoint(context.Background())
					before, written = storeCounts(h)
				}
				var ru0 syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
				for b.Loop() {
					turn()
				}
				var ru1 syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
				cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
				b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
				if on {
					_ = h.settleCheckpoint(context.Background())
					hashes, w := storeCounts(h)
					b.ReportMetric(float64(hashes-before)/float64(b.N), "hashes/op")
					b.ReportMetric(float64(w-written)/float64(b.N), "written-bytes/op")
				}
			})
		}
	}
}

// storeCounts sums the files hashed and bytes written by every root's store.
func storeCounts(h *Harness) (hashes, written int64) {
	for _, cs := range h.ck.stores {
		hashes += cs.st.Hashes()
		written += cs.st.Written()
	}
	return hashes, written
}
