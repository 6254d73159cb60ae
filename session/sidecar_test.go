package session

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/internal/sessiongen"
)

// bigSession writes a generated session just over the sidecar threshold,
// with compactions and branches, plus a label, a name and a custom entry.
func bigSession(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sessiongen.Write(f, sessiongen.Options{Bytes: sidecarMinSize + 1<<20, Seed: 7, CompactEvery: 400_000, BranchEvery: 10}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, path, true)
	leaf := s.LeafID()
	s.Close()
	appendLines(t, path,
		entryLine("label", "lb000001", leaf, `"targetId":"`+leaf+`","label":"checkpoint"`),
		entryLine("session_info", "si000001", "lb000001", `"name":"big one"`),
		entryLine("custom", "cu000001", "si000001", `"customType":"pi-lsp.state","data":{"mode":"plan"}`),
	)
	return path
}

func appendLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	appendRaw(t, path, strings.Join(lines, "\n")+"\n")
}

// scanned opens path with no sidecar (removing it first), so the index
// comes from the full scan, and waits for the sidecar's save after it.
func scanned(t *testing.T, path string) *Session {
	t.Helper()
	os.Remove(sidecarPath(path))
	s := mustOpen(t, path, true)
	s.saves.Wait()
	return s
}

// sameIndex asserts that two sessions hold the same index and state.
func sameIndex(t *testing.T, got, want *Session) {
	t.Helper()
	g, w := got.idx, want.idx
	g.pending, w.pending = nil, nil
	if len(g.recs) != len(w.recs) {
		t.Fatalf("records: got %d, want %d", len(g.recs), len(w.recs))
	}
	for i := range w.recs {
		if g.recs[i] != w.recs[i] {
			t.Fatalf("record %d: got %+v, want %+v", i, g.recs[i], w.recs[i])
		}
		id := w.id(int32(i))
		if g.id(int32(i)) != id {
			t.Fatalf("record %d: id %q, want %q", i, g.id(int32(i)), id)
		}
		gi, gok := g.lookup(id)
		wi, wok := w.lookup(id)
		if gi != wi || gok != wok {
			t.Fatalf("lookup %s: got %d %v, want %d %v", id, gi, gok, wi, wok)
		}
	}
	if !bytes.Equal(g.ids, w.ids) {
		t.Fatalf("id arena: got %d bytes, want %d", len(g.ids), len(w.ids))
	}
	if !reflect.DeepEqual(g.strs, w.strs) || !reflect.DeepEqual(g.labels, w.labels) ||
		!reflect.DeepEqual(g.usage, w.usage) || !slices.Equal(g.costs, w.costs) || g.cost != w.cost || g.name != w.name || g.leaf != w.leaf || g.linear != w.linear {
		t.Fatal("index differs from the scanned one")
	}
	if got.size != want.size || got.lineNo != want.lineNo || got.header != want.header || got.fileVersion != want.fileVersion {
		t.Fatalf("state: got size %d line %d %+v, want size %d line %d %+v", got.size, got.lineNo, got.header, want.size, want.lineNo, want.header)
	}
	if !reflect.DeepEqual(got.Warnings(), want.Warnings()) {
		t.Fatalf("warnings: got %q, want %q", got.Warnings(), want.Warnings())
	}
}

func TestSidecarGivesTheScannedIndex(t *testing.T) {
	ctx := context.Background()
	path := bigSession(t)
	want := scanned(t, path)
	st, err := os.Stat(sidecarPath(path))
	if err != nil {
		t.Fatalf("no sidecar after opening a %d-byte session: %v", want.size, err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("sidecar mode %v", st.Mode().Perm())
	}
	got := mustOpen(t, path, true)
	if !got.loadedFromSidecar {
		t.Fatal("the second open scanned the file again")
	}
	sameIndex(t, got, want)
	if got.Name() != "big one" || got.Label(want.LeafID()) != "" {
		t.Fatalf("name %q", got.Name())
	}
	gc, err := got.BuildContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wc, err := want.BuildContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gc, wc) {
		t.Fatal("context from the sidecar differs")
	}
}

// TestSidecarIsSavedAfterTheOpen: the first open of a large file returns
// before its index is saved, and the save follows without a Close; a
// Close right after the open still leaves the sidecar, and appends made
// meanwhile are covered.
func TestSidecarIsSavedAfterTheOpen(t *testing.T) {
	path := bigSession(t)
	os.Remove(sidecarPath(path))
	s := mustOpen(t, path, true)
	s.saves.Wait()
	if _, err := os.Stat(sidecarPath(path)); err != nil {
		t.Fatalf("no sidecar after the open's save: %v", err)
	}
	if s.savedSize != s.size {
		t.Fatalf("saved %d of %d bytes", s.savedSize, s.size)
	}
	s.Close()

	os.Remove(sidecarPath(path))
	w := mustOpen(t, path, false)
	if err := w.SetName(context.Background(), "renamed"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := mustOpen(t, path, true)
	if !got.loadedFromSidecar || got.stats.scannedBytes != 0 {
		t.Fatalf("reopen: from sidecar %v, %+v", got.loadedFromSidecar, got.stats)
	}
	want := scanned(t, path)
	sameIndex(t, got, want)
	if got.Name() != "renamed" {
		t.Fatalf("name %q", got.Name())
	}
}

func TestSidecarCatchesUpOnAppendedLines(t *testing.T) {
	path := bigSession(t)
	scanned(t, path).Close() // writes the sidecar
	// Another writer (pi) appends, with a parent that comes after its child
	// and a torn last line.
	appendLines(t, path,
		msgLine("ap000001", "ap000002", "user", "late child"),
		msgLine("ap000002", "cu000001", "assistant", "parent after"),
		msgLine("ap000003", "ap000001", "user", "next"),
	)
	appendRaw(t, path, `{"type":"message","id":"torn`)
	got := mustOpen(t, path, true)
	if !got.loadedFromSidecar {
		t.Fatal("the sidecar was not used")
	}
	if got.LeafID() != "ap000003" {
		t.Fatalf("leaf %q", got.LeafID())
	}
	want := scanned(t, path)
	// The catch-up links late parents like a live refresh, not like the
	// full scan's finish, so compare what both must agree on.
	if len(got.idx.recs) != len(want.idx.recs) || got.size != want.size || got.LeafID() != want.LeafID() {
		t.Fatalf("got %d records, %d bytes; want %d, %d", len(got.idx.recs), got.size, len(want.idx.recs), want.size)
	}
	for _, id := range []string{"ap000001", "ap000002", "ap000003"} {
		gi, _ := got.idx.lookup(id)
		wi, _ := want.idx.lookup(id)
		if got.idx.recs[gi].parent != want.idx.recs[wi].parent {
			t.Fatalf("%s: parent differs", id)
		}
	}
	if len(got.Warnings()) == 0 {
		t.Fatal("the torn last line was not reported")
	}
}

func TestStaleSidecarIsNotTrusted(t *testing.T) {
	cases := map[string]func(t *testing.T, path string){
		"rewritten in place": func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			// The same bytes count, another entry id near the end.
			b := make([]byte, 8)
			if _, err := f.ReadAt(b, st.Size()-200); err == nil {
				for i := range b {
					if b[i] >= 'a' && b[i] <= 'z' {
						b[i] = 'a' + (b[i]-'a'+1)%26
					}
				}
			}
			if _, err := f.WriteAt(b, st.Size()-200); err != nil {
				t.Fatal(err)
			}
		},
		"replaced by another file": func(t *testing.T, path string) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tmp := path + ".new"
			if err := os.WriteFile(tmp, data[:len(data)-1000], 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		},
		"sidecar truncated": func(t *testing.T, path string) {
			st, _ := os.Stat(sidecarPath(path))
			if err := os.Truncate(sidecarPath(path), st.Size()/2); err != nil {
				t.Fatal(err)
			}
		},
		"sidecar writable by others": func(t *testing.T, path string) {
			if err := os.Chmod(sidecarPath(path), 0o666); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			path := bigSession(t)
			scanned(t, path).Close()
			change(t, path)
			s := mustOpen(t, path, true)
			if s.loadedFromSidecar {
				t.Fatal("a stale sidecar was used")
			}
			sameIndex(t, s, scanned(t, path))
		})
	}
}

func TestSmallSessionHasNoSidecar(t *testing.T) {
	path := writeLines(t, t.TempDir(), testHeader, msgLine("aa000001", "", "user", "hi"))
	mustOpen(t, path, false).Close()
	if _, err := os.Stat(sidecarPath(path)); !os.IsNotExist(err) {
		t.Fatalf("sidecar beside a small session: %v", err)
	}
}

// FuzzDecodeSidecar: any bytes either fail to decode or give an index
// whose links are in range (walking and relinking it does not panic).
func FuzzDecodeSidecar(f *testing.F) {
	x := newIndex(false)
	for i, id := range []string{"a1", "b2", "c3"} {
		li := lineInfo{typ: "message", id: id, hasID: true, role: "assistant", usage: []byte(`{"input":5}`)}
		if i > 0 {
			li.hasParent, li.parent = true, "a1"
		}
		x.add(li, []byte("{}"), int64(10*i+100))
	}
	x.intern("t")
	x.labels["a1"] = labelVal{"l", "ts"}
	x.finish()
	data, err := encodeSidecar(&sidecarState{size: 200, fileVersion: 3, header: Header{Version: 3, ID: "s"}, lineNo: 4, idx: x, warnings: []string{"w"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(sidecarMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := decodeSidecar(data)
		if err != nil {
			return
		}
		x := &st.idx
		for i := range x.recs {
			_ = x.path(int32(i))
			_ = x.children(int32(i))
			_ = x.typeName(int32(i))
		}
		if x.leaf != none {
			_ = x.path(x.leaf)
		}
	})
}

// TestSidecarIDsBuiltOnFirstLookup: an open from the sidecar leaves the id
// table unbuilt; readers racing to the first lookups all find every entry,
// and an append after that is found too.
func TestSidecarIDsBuiltOnFirstLookup(t *testing.T) {
	path := bigSession(t)
	want := scanned(t, path)
	ids := make([]string, len(want.idx.recs))
	for i := range want.idx.recs {
		ids[i] = want.idx.id(int32(i))
	}
	want.Close()
	got := mustOpen(t, path, false)
	if !got.loadedFromSidecar {
		t.Fatal("the sidecar was not used")
	}
	if got.idx.byID.ready.Load() {
		t.Fatal("the open built the id table")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Go(func() {
			for k := g; k < len(ids); k += 97 {
				if _, err := got.Entry(ids[k]); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	id, err := got.AppendCustom(context.Background(), "probe", map[string]int{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := got.Entry(id); err != nil {
		t.Fatalf("appended entry: %v", err)
	}
}
