package harness

import (
	"slices"
	"testing"
)

// extraRoots drops roots nested in a root before them and has each kept
// root leave out the kept roots nested in it.
func TestExtraRootsNesting(t *testing.T) {
	tests := []struct {
		name  string
		roots []string
		extra []string
		excl  [][]string
	}{
		{"main only", []string{"/w/main"}, nil, [][]string{nil}},
		{"sibling", []string{"/w/main", "/w/lib"}, []string{"/w/lib"}, [][]string{nil, nil}},
		{"inside main", []string{"/w/main", "/w/main/vendor"}, nil, [][]string{nil}},
		{"main inside extra", []string{"/w/main", "/w"}, []string{"/w"}, [][]string{nil, {"main"}}},
		{"prefix is not nesting", []string{"/w/main", "/w/main2"}, []string{"/w/main2"}, [][]string{nil, nil}},
		{"nested extras", []string{"/w/main", "/x/a/b", "/x/a", "/x/a/b/c"}, []string{"/x/a/b", "/x/a"}, [][]string{nil, nil, {"b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extra, excl := extraRoots("/w/main", tt.roots)
			if !slices.Equal(extra, tt.extra) {
				t.Fatalf("extra = %v, want %v", extra, tt.extra)
			}
			if !slices.EqualFunc(excl, tt.excl, func(a, b []string) bool { return slices.Equal(a, b) }) {
				t.Fatalf("excl = %q, want %q", excl, tt.excl)
			}
		})
	}
}

// Entries written before extra roots were covered have no roots: they
// stand on the main root only, and differ from a set that has a root.
func TestCheckpointDataRoots(t *testing.T) {
	old := checkpointData{ID: "m1", Kind: ckStart}
	cur := checkpointData{ID: "m1", Kind: ckEnd, Roots: []rootData{{Root: "/lib", ID: "l1"}}}
	if id, ok := old.idOf(""); !ok || id != "m1" {
		t.Fatalf("old main = %q %v", id, ok)
	}
	if _, ok := old.idOf("/lib"); ok {
		t.Fatal("an old entry has a checkpoint of /lib")
	}
	if old.same(cur) || cur.same(old) {
		t.Fatal("a set without the root is the same as one with it")
	}
	other := checkpointData{ID: "m1", Roots: []rootData{{Root: "/lib", ID: "l2"}}}
	if cur.same(other) || !cur.same(checkpointData{ID: "m1", Roots: []rootData{{Root: "/lib", ID: "l1"}}}) {
		t.Fatal("same compares the roots' ids")
	}
}
