package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/internal/sessiongen"
)

// openSequential opens path read-only with the sequential full scan.
func openSequential(t *testing.T, path string) *Session {
	return openScan(t, path, &Session{path: path, readOnly: true, sequential: true})
}

// openParallel opens path read-only with the parallel full scan, on any
// number of cores.
func openParallel(t *testing.T, path string) *Session {
	return openScan(t, path, &Session{path: path, readOnly: true, parallel: true})
}

func openScan(t *testing.T, path string, s *Session) *Session {
	t.Helper()
	os.Remove(sidecarPath(path))
	if err := s.openAndLoad(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The parallel scan gives the index the sequential scan gives, on a file
// with every kind of line: compactions and branches, labels, a name, leaf
// moves, blank, corrupt and glued lines, a line longer than the read
// buffer, entries whose parent comes later, and a torn last line; with
// segment boundaries falling inside lines.
func TestParallelScanGivesTheSequentialIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sessiongen.Write(f, sessiongen.Options{Bytes: 3*segmentSize + 12345, Seed: 11, CompactEvery: 600_000, BranchEvery: 7}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s := mustOpen(t, path, true)
	leaf := s.LeafID()
	s.Close()
	long := strings.Repeat("x", 600<<10)
	appendLines(t, path,
		entryLine("label", "pl000001", leaf, `"targetId":"`+leaf+`","label":"here"`),
		"",
		entryLine("session_info", "pl000002", "pl000001", `"name":"parallel"`),
		"{broken",
		msgLine("pl000004", "pl000003", "user", "child first"),
		msgLine("pl000003", "pl000002", "assistant", "parent after"),
		msgLine("pl000005", "pl000004", "user", long),
		msgLine("pl000006", "pl000005", "user", "a")+msgLine("pl000007", "pl000006", "user", "glued"),
		entryLine("leaf", "pl000008", "pl000005", `"targetId":"pl000005"`),
		msgLine("pl000009", "pl000008", "assistant", "after the move"),
	)
	appendRaw(t, path, `{"type":"message","id":"torn`)
	want := openSequential(t, path)
	got := openParallel(t, path)
	if got.stats.fullScans != 1 || got.loadedFromSidecar {
		t.Fatalf("not a full scan: %+v", got.stats)
	}
	sameIndex(t, got, want)
	if got.Name() != "parallel" || got.Label(leaf) != "here" || got.LeafID() != "pl000009" {
		t.Fatalf("name %q label %q leaf %s", got.Name(), got.Label(leaf), got.LeafID())
	}
	if len(got.Warnings()) < 3 {
		t.Fatalf("warnings %q", got.Warnings())
	}
}
