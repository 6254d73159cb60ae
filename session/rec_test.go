package session

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestRecHoldsNoPointers: the index records of a large session are one
// allocation the collector need not scan, so no field may hold a pointer
// (a string, slice, map or pointer), and a record stays 48 bytes.
func TestRecHoldsNoPointers(t *testing.T) {
	typ := reflect.TypeOf(rec{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch f.Type.Kind() {
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			t.Errorf("rec.%s is a %s: records must hold no pointers", f.Name, f.Type)
		}
	}
	if n := unsafe.Sizeof(rec{}); n > 48 {
		t.Errorf("rec is %d bytes, want at most 48", n)
	}
}

// TestIDArenaAfterAppends: ids appended after an open (the arena grows
// and is reallocated) stay readable and found by lookup, and ids handed
// out before are not changed by the growth.
func TestIDArenaAfterAppends(t *testing.T) {
	path := bigSession(t)
	s := mustOpen(t, path, false)
	defer s.Close()
	first := s.idx.id(0)
	var ids []string
	for range 300 {
		id, err := s.AppendMessage(t.Context(), user("more"))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if s.idx.id(0) != first {
		t.Fatalf("first id changed: %q, was %q", s.idx.id(0), first)
	}
	for _, id := range ids {
		i, ok := s.idx.lookup(id)
		if !ok || s.idx.id(i) != id {
			t.Fatalf("lookup %s: %d %v", id, i, ok)
		}
	}
	if got := s.LeafID(); got != ids[len(ids)-1] {
		t.Fatalf("leaf %s, want %s", got, ids[len(ids)-1])
	}
}
