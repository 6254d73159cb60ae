package checkpoint

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// dirHandle is one open folder of the walk. On Linux its files are
// stat'ed with fstatat relative to the folder's descriptor, so the kernel
// resolves one name per file rather than the whole path from the root
// (most of an unchanged checkpoint's time is these stats).
type dirHandle struct {
	f  *os.File
	fd int
}

func openDir(abs string) (*dirHandle, error) {
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	return &dirHandle{f: os.NewFile(uintptr(fd), abs), fd: fd}, nil
}

// entries lists the folder, unsorted, with the types readdir gives (d_type:
// no stat for a folder's entries' kinds).
func (d *dirHandle) entries() ([]fs.DirEntry, error) { return d.f.ReadDir(-1) }

// stat is an lstat of one entry of the folder.
func (d *dirHandle) stat(name string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fileStat{}, err
	}
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	default:
		mode |= fs.ModeIrregular
	}
	return fileStat{
		mode:  mode,
		size:  st.Size,
		mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
		ino:   st.Ino,
	}, nil
}

func (d *dirHandle) close() { _ = d.f.Close() }
