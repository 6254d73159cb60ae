package session

import "unsafe"

// hugeMin is the smallest backing array worth asking huge pages for.
const hugeMin = 4 << 20

// makeHuge makes a slice like make([]T, n, c), and when its backing array
// is large, asks the kernel to back it with 2 MB pages (adviseHuge). The
// index of a large session holds a few arrays of several megabytes (records,
// usage, costs, the id arena) that a first open or a reopen fills at once:
// with 4 KB pages, each page's first touch is a fault, and on the VMs this
// runs on (docs/benchmarks.md) a fault costs 10–20 µs, so touching 12 MB
// took 30–60 ms of the open. With huge pages the same touch takes 1–2 ms.
// The arrays hold no pointers and stay ordinary Go memory: the advice
// changes only how the kernel backs them, never their contents or life.
func makeHuge[T any](n, c int) []T {
	s := make([]T, n, c)
	var zero T
	if size := uintptr(c) * unsafe.Sizeof(zero); size >= hugeMin {
		adviseHuge(uintptr(unsafe.Pointer(unsafe.SliceData(s))), size)
	}
	return s
}
