package session

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// appendTurns appends turns through the Session API (what the harness
// calls) until the file holds at least size bytes.
func appendTurns(t *testing.T, s *Session, size int64) {
	t.Helper()
	ctx := context.Background()
	body := strings.Repeat("output line of a long tool run\n", 1000) // ~31 KB
	for k := 0; s.size < size; k++ {
		must[string](t)(s.AppendMessage(ctx, llm.UserText(fmt.Sprintf("turn %d", k), 0)))
		call := llm.ContentBlock{Type: llm.BlockToolCall, ID: fmt.Sprintf("c%d", k), Name: "bash", Arguments: []byte(`{"command":"make"}`)}
		must[string](t)(s.AppendMessage(ctx, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.ContentBlock{llm.TextBlock("building"), call},
			Usage: llm.Usage{Input: 100, Output: 10, TotalTokens: 110}}))
		must[string](t)(s.AppendMessage(ctx, llm.Message{Role: llm.RoleToolResult, ToolCallID: call.ID, ToolName: "bash", Content: []llm.ContentBlock{llm.TextBlock(body)}}))
		if k%17 == 0 {
			must[string](t)(s.AppendCustom(ctx, "pi-lsp/state", map[string]int{"k": k}))
		}
	}
}

// A session pi-lsp writes keeps its sidecar current: past the threshold it
// is saved every sidecarRescan bytes of appends and on close, so a reopen
// scans nothing and gives the index a fresh scan gives.
func TestAppendsKeepTheSidecarCurrent(t *testing.T) {
	ctx := context.Background()
	s, err := Create(ctx, t.TempDir(), "/w", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	appendTurns(t, s, sidecarMinSize+sidecarRescan+1<<20)
	// While the writer is open (as after a crash): the sidecar covers all
	// but the last few megabytes.
	mid := mustOpen(t, path, true)
	if !mid.loadedFromSidecar || mid.stats.fullScans != 0 || mid.stats.scannedBytes >= sidecarRescan {
		t.Fatalf("open beside the writer: from sidecar %v, %+v", mid.loadedFromSidecar, mid.stats)
	}
	mid.Close()
	appendTurns(t, s, s.size+1<<20)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got := mustOpen(t, path, true)
	if !got.loadedFromSidecar || got.stats.fullScans != 0 || got.stats.scannedBytes != 0 {
		t.Fatalf("reopen after close: from sidecar %v, %+v", got.loadedFromSidecar, got.stats)
	}
	want := scanned(t, path)
	if want.stats.fullScans != 1 || want.stats.scannedBytes != want.size {
		t.Fatalf("fresh scan: %+v", want.stats)
	}
	sameIndex(t, got, want)
	gc := must[Context](t)(got.BuildContext(ctx))
	wc := must[Context](t)(want.BuildContext(ctx))
	if len(gc.Messages) != len(wc.Messages) || len(gc.Messages) == 0 {
		t.Fatalf("context: %d messages from the sidecar, %d scanned", len(gc.Messages), len(wc.Messages))
	}
}

// A sidecar left stale by another writer (pi appends without pi-lsp's
// lock) is extended from its last offset, not rebuilt, and saved again on
// close.
func TestStaleSidecarIsExtended(t *testing.T) {
	path := bigSession(t)
	first := scanned(t, path)
	covered := first.size
	leaf := first.LeafID()
	first.Close()
	var lines []string
	parent := leaf
	for k := range 200 {
		id := fmt.Sprintf("pa%06d", k)
		lines = append(lines, msgLine(id, parent, []string{"user", "assistant"}[k%2], strings.Repeat("pi wrote this ", 40)))
		parent = id
	}
	appendLines(t, path, lines...)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	got := mustOpen(t, path, true)
	if !got.loadedFromSidecar || got.stats.fullScans != 0 || got.stats.scannedBytes != st.Size()-covered {
		t.Fatalf("stale sidecar: from sidecar %v, %+v; want %d bytes scanned", got.loadedFromSidecar, got.stats, st.Size()-covered)
	}
	if got.LeafID() != parent {
		t.Fatalf("leaf %s, want %s", got.LeafID(), parent)
	}
	got.Close() // saves the extended index
	again := mustOpen(t, path, true)
	if !again.loadedFromSidecar || again.stats.scannedBytes != 0 {
		t.Fatalf("after close: from sidecar %v, %+v", again.loadedFromSidecar, again.stats)
	}
	sameIndex(t, again, scanned(t, path))
}

// A sidecar of the previous format (no item counts) is not trusted: the
// file is scanned and the sidecar rewritten in the current format.
func TestOldSidecarFormatIsRebuilt(t *testing.T) {
	path := bigSession(t)
	scanned(t, path).Close()
	b, err := os.ReadFile(sidecarPath(path))
	if err != nil {
		t.Fatal(err)
	}
	v := binary.AppendUvarint(nil, sidecarVersion-1)
	copy(b[len(sidecarMagic):], v)
	if err := os.WriteFile(sidecarPath(path), b, 0o600); err != nil {
		t.Fatal(err)
	}
	got := mustOpen(t, path, true)
	if got.loadedFromSidecar || got.stats.fullScans != 1 {
		t.Fatalf("old sidecar used: %+v", got.stats)
	}
	got.Close()
	b, err = os.ReadFile(sidecarPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if ver, _ := binary.Uvarint(b[len(sidecarMagic):]); ver != sidecarVersion {
		t.Fatalf("sidecar rewritten as version %d", ver)
	}
	if again := mustOpen(t, path, true); !again.loadedFromSidecar {
		t.Fatal("the rewritten sidecar was not used")
	}
}
