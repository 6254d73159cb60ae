package session

import (
	"bytes"
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// idTable maps entry ids to record numbers. It is an open-addressing hash
// table of record numbers that compares against the index's id arena, so
// it holds 4-8 bytes per entry (a map[string]int32 holds about 40) and
// fills without per-entry allocations: building it is most of what
// opening a large session from its sidecar costs.
type idTable struct {
	seed  maphash.Seed
	slots []int32 // record number + 1; 0 = empty
	n     int
}

func newIDTable(hint int) idTable {
	size := 16
	for size < 2*hint {
		size <<= 1
	}
	return idTable{seed: maphash.MakeSeed(), slots: make([]int32, size)}
}

func (t *idTable) hash(id string) int {
	return int(maphash.String(t.seed, id) & uint64(len(t.slots)-1))
}

// hashBytes is hash of an id in the arena (maphash gives bytes and
// strings of the same content the same hash).
func (t *idTable) hashBytes(id []byte) int {
	return int(maphash.Bytes(t.seed, id) & uint64(len(t.slots)-1))
}

// get returns the record whose id is id.
func (t *idTable) get(x *index, id string) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for h := t.hash(id); ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			return 0, false
		}
		if x.idIs(v-1, id) {
			return v - 1, true
		}
	}
}

// put maps record i's id to i; a later record with the same id replaces
// the earlier one.
func (t *idTable) put(x *index, i int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow(x)
	}
	id := x.idBytes(i)
	mask := len(t.slots) - 1
	for h := t.hashBytes(id); ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			t.slots[h] = i + 1
			t.n++
			return
		}
		if bytes.Equal(x.idBytes(v-1), id) {
			t.slots[h] = i + 1
			return
		}
	}
}

func (t *idTable) grow(x *index) {
	old := t.slots
	size := max(16, 2*len(old))
	if len(old) == 0 {
		t.seed = maphash.MakeSeed()
	}
	t.slots, t.n = make([]int32, size), 0
	mask := size - 1
	for _, v := range old {
		if v == 0 {
			continue
		}
		h := t.hashBytes(x.idBytes(v - 1))
		for t.slots[h] != 0 {
			h = (h + 1) & mask
		}
		t.slots[h] = v
		t.n++
	}
}

// lazyIDs is the id table of an index, built at the first lookup: opening
// a session needs no lookup by id (links are record numbers, and the
// display's first page reads records), so an open from the sidecar does
// not pay for hashing every id. Readers under the session's read lock
// build it under mu; once ready, the index's writers (who hold the
// session's write lock, so no reader runs) add each new record to it.
type lazyIDs struct {
	mu    sync.Mutex
	ready atomic.Bool
	t     idTable
}

// ensure builds the table over recs when it is not built yet.
func (l *lazyIDs) ensure(x *index) {
	if l.ready.Load() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ready.Load() {
		return
	}
	l.t = newIDTable(len(x.recs))
	for i := range x.recs {
		l.t.put(x, int32(i))
	}
	l.ready.Store(true)
}

// added records x.recs[i], just appended by a writer: the table, once
// built, must hold it (before, the build will).
func (l *lazyIDs) added(x *index, i int32) {
	if l.ready.Load() {
		l.t.put(x, i)
	}
}

// get returns the record whose id is id, building the table first.
func (l *lazyIDs) get(x *index, id string) (int32, bool) {
	l.ensure(x)
	return l.t.get(x, id)
}
