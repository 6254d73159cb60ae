//go:build unix

package checkpoint

import (
	"io/fs"
	"syscall"
)

// statIDs returns a file's inode and ctime (ns), which the stat cache
// compares besides size, mtime and mode: a file rewritten in place with
// the same size and mtime still changes its ctime.
func statIDs(info fs.FileInfo) (ino uint64, ctime int64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return uint64(st.Ino), st.Ctim.Sec*1e9 + st.Ctim.Nsec //nolint:unconvert // Ino is not uint64 everywhere
}
