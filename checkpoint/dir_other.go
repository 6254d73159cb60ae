//go:build !linux

package checkpoint

import (
	"io/fs"
	"os"
	"path/filepath"
)

// dirHandle is one open folder of the walk; off Linux its files are
// lstat'ed by path, and the stat cache compares size, mtime and mode only
// (no inode or ctime).
type dirHandle struct {
	f   *os.File
	abs string
}

func openDir(abs string) (*dirHandle, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	return &dirHandle{f: f, abs: abs}, nil
}

func (d *dirHandle) entries() ([]fs.DirEntry, error) { return d.f.ReadDir(-1) }

func (d *dirHandle) stat(name string) (fileStat, error) {
	info, err := os.Lstat(filepath.Join(d.abs, name))
	if err != nil {
		return fileStat{}, err
	}
	return fileStat{mode: info.Mode(), size: info.Size(), mtime: info.ModTime().UnixNano()}, nil
}

func (d *dirHandle) close() { _ = d.f.Close() }
