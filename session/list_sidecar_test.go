package session

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// fullInfo lists a copy of path that has no sidecar: the Info a scan of
// every line gives.
func fullInfo(t *testing.T, path string) Info {
	t.Helper()
	cp := filepath.Join(t.TempDir(), filepath.Base(path))
	src, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(cp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	info, scanned := readInfoScanned(cp)
	st, _ := os.Stat(cp)
	if info == nil || scanned != st.Size() {
		t.Fatalf("full scan: %v, %d of %d bytes", info, scanned, st.Size())
	}
	info.Path = path
	return *info
}

func sameInfo(t *testing.T, got *Info, want Info) {
	t.Helper()
	if got == nil {
		t.Fatal("not listed")
	}
	got.activity, want.activity = got.activity.UTC(), want.activity.UTC()
	if got.ID != want.ID || got.Name != want.Name || got.FirstMessage != want.FirstMessage || got.LastMessage != want.LastMessage ||
		!got.Modified.Equal(want.Modified) || !got.Created.Equal(want.Created) || got.EntryCount != want.EntryCount || got.Cwd != want.Cwd {
		t.Fatalf("info from the sidecar differs from a full scan:\n got %+v\nwant %+v", *got, want)
	}
}

// TestListReadsTheSidecarSummary: listing a large session whose sidecar is
// current reads its header line and nothing else; after appends it reads
// only what was appended; the Info equals a full scan's each time; a
// sidecar that no longer describes the file means a full scan again.
func TestListReadsTheSidecarSummary(t *testing.T) {
	path := bigSession(t)
	s := scanned(t, path) // saves the sidecar
	s.Close()
	st, _ := os.Stat(path)

	info, n := readInfoScanned(path)
	sameInfo(t, info, fullInfo(t, path))
	if n >= 64<<10 {
		t.Fatalf("with a current sidecar the list read %d bytes of %d", n, st.Size())
	}
	if info.LastMessage == "" || info.FirstMessage == "" || info.Name != "big one" {
		t.Fatalf("summary: first %q last %q name %q", info.FirstMessage, info.LastMessage, info.Name)
	}
	head := n

	// Appended by another writer (pi): the list reads the tail only.
	tail := entryLine("message", "tl000001", "cu000001", `"message":{"role":"user","content":"the tail prompt","timestamp":1900000000000}`) + "\n" +
		entryLine("session_info", "tl000002", "tl000001", `"name":"renamed"`) + "\n"
	appendRaw(t, path, tail)
	info, n = readInfoScanned(path)
	sameInfo(t, info, fullInfo(t, path))
	if n != head+int64(len(tail)) {
		t.Fatalf("after an append the list read %d bytes, want %d (header) + %d (tail)", n, head, len(tail))
	}
	if info.LastMessage != "the tail prompt" || info.Name != "renamed" || info.Modified.UnixMilli() != 1900000000000 {
		t.Fatalf("tail not applied: %+v", *info)
	}

	// A sidecar of another format or a damaged one: a full scan.
	data, err := os.ReadFile(sidecarPath(path))
	if err != nil {
		t.Fatal(err)
	}
	data[len(sidecarMagic)] = sidecarVersion - 1
	if err := os.WriteFile(sidecarPath(path), data, 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ = os.Stat(path)
	info, n = readInfoScanned(path)
	sameInfo(t, info, fullInfo(t, path))
	if n != st.Size() {
		t.Fatalf("old-format sidecar: read %d bytes, want the whole %d", n, st.Size())
	}

	// The open rebuilds it, and a list is cheap again.
	mustOpen(t, path, false).Close()
	if info, n = readInfoScanned(path); n >= 64<<10 {
		t.Fatalf("after the rebuild the list read %d bytes", n)
	}
	sameInfo(t, info, fullInfo(t, path))
}

// TestListSummaryKeptCurrentByAppends: a session pi-lsp appends to keeps
// its sidecar's list summary current (saved on close), so the list reads
// no message line of it.
func TestListSummaryKeptCurrentByAppends(t *testing.T) {
	path := bigSession(t)
	s := scanned(t, path)
	s.Close()
	s = mustOpen(t, path, false)
	if _, err := s.AppendMessage(t.Context(), user("appended by pi-lsp")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	info, n := readInfoScanned(path)
	if n >= 64<<10 {
		t.Fatalf("list read %d bytes", n)
	}
	sameInfo(t, info, fullInfo(t, path))
	if info.LastMessage != "appended by pi-lsp" {
		t.Fatalf("last message %q", info.LastMessage)
	}
}

// FuzzActivityMatchesScan: the activity time the scanner records for the
// sidecar (scanLine) is the one the list computes from the line
// (activityTime).
func FuzzActivityMatchesScan(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","id":"a","timestamp":"2025-01-01T00:00:01.500Z","message":{"role":"user","content":"x","timestamp":1700000000123}}`,
		`{"type":"message","id":"a","timestamp":"2025-01-01T00:00:01.500Z","message":{"role":"assistant","content":[]}}`,
		`{"type":"message","id":"a","timestamp":"2025-01-01T00:00:01.500Z","message":{"role":"toolResult","content":[],"timestamp":5}}`,
		`{"type":"message","id":"a","timestamp":"bad","message":{"role":"user","content":"x","timestamp":"1"}}`,
		`{"type":"message","id":"a","message":{"role":"user","timestamp":1.5e12}}`,
		`{"type":"custom","id":"a","timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"x"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		li, err := scanLine(line)
		if err != nil {
			return
		}
		at, ok := activityTime(line)
		if ok != li.hasActivity || (ok && at.UnixMilli() != li.activity) {
			t.Fatalf("activityTime %v %v (%d), scanLine %v %d", at, ok, at.UnixMilli(), li.hasActivity, li.activity)
		}
	})
}
