package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-lsp/pi-lsp/internal/sessiongen"
	"github.com/pi-lsp/pi-lsp/llm"
)

// benchFile writes a generated session of about mb megabytes.
func benchFile(b *testing.B, mb float64, compactEvery int64) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := sessiongen.Write(f, sessiongen.Options{Bytes: int64(mb * 1e6), Seed: 1, CompactEvery: compactEvery, BranchEvery: 25}); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkOpen indexes a 32 MB session (read-only open: one scan).
func BenchmarkOpen(b *testing.B) {
	path := benchFile(b, 32, 800_000)
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		s, err := Open(context.Background(), path, OpenOptions{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkOpenAndShow is what "pi-lsp sessions show" does: open, then
// count the context and read the model.
func BenchmarkOpenAndShow(b *testing.B) {
	path := benchFile(b, 32, 800_000)
	b.ReportAllocs()
	for b.Loop() {
		s, err := Open(context.Background(), path, OpenOptions{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.ContextInfo(context.Background()); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkAppend appends one assistant message (encode, write, fsync).
func BenchmarkAppend(b *testing.B) {
	s, err := Create(context.Background(), b.TempDir(), "/bench", CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m := llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{llm.TextBlock(string(make([]byte, 2000)))}, Provider: "p", Model: "m", StopReason: llm.StopStop}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.AppendMessage(context.Background(), m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildContext rebuilds the context of a compacted 32 MB session,
// as every turn does (decoded messages are cached).
func BenchmarkBuildContext(b *testing.B) {
	s, err := Open(context.Background(), benchFile(b, 32, 800_000), OpenOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		c, err := s.BuildContext(context.Background())
		if err != nil || len(c.Messages) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildContextCold is BuildContext on a freshly opened session
// (nothing decoded yet).
func BenchmarkBuildContextCold(b *testing.B) {
	s, err := Open(context.Background(), benchFile(b, 32, 800_000), OpenOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		s.cache = msgCache{}
		if _, err := s.BuildContext(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildContextUncompacted decodes a whole 8 MB branch (no
// compaction): the worst case for one turn.
func BenchmarkBuildContextUncompacted(b *testing.B) {
	s, err := Open(context.Background(), benchFile(b, 8, 0), OpenOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		s.cache = msgCache{}
		if _, err := s.BuildContext(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList lists a directory of 100 sessions of 1 MB each (the
// 100 x 10 MB figure is in scripts/bench-session.sh).
func BenchmarkList(b *testing.B) {
	src := benchFile(b, 1, 800_000)
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	dir := DirFor(root, "/bench")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("2025-01-01T00-00-00-%03dZ_s%d.jsonl", i, i)), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(data)) * 100)
	b.ReportAllocs()
	for b.Loop() {
		l, err := List(context.Background(), root, "/bench")
		if err != nil || len(l) != 100 {
			b.Fatal(len(l), err)
		}
	}
}
