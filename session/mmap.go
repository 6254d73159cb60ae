package session

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only; unmap releases them
// (the bytes must not be used after).
func mapFile(f *os.File, size int64) (data []byte, unmap func(), err error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, fmt.Errorf("session: map %s: size %d", f.Name(), size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, mapFlags)
	if err != nil {
		return nil, nil, fmt.Errorf("session: map %s: %w", f.Name(), err)
	}
	return b, func() { _ = syscall.Munmap(b) }, nil
}
