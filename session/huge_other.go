//go:build !linux

package session

// adviseHuge does nothing where madvise(MADV_HUGEPAGE) does not exist.
func adviseHuge(p, n uintptr) {}
