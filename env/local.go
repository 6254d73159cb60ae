package env

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// DefaultMaxReadBytes bounds ReadFile on a Local, so one huge file cannot
// exhaust memory.
const DefaultMaxReadBytes = 256 << 20

// Local is the Env over the machine's own disk and shell.
type Local struct {
	cwd   string
	home  string
	shell string // absolute path of bash, else sh
	// MaxReadBytes bounds ReadFile (CodeTooLarge beyond it); 0 = unbounded.
	MaxReadBytes int64
	// KillGrace is the wait between SIGTERM and SIGKILL when a command is
	// aborted; 0 means DefaultKillGrace.
	KillGrace time.Duration
	// SandboxHelper is the executable whose SandboxExecCommand subcommand
	// restricts itself and execs a sandboxed command (pi-lsp itself). A
	// sandboxed request fails without it.
	SandboxHelper string
}

var _ Env = (*Local)(nil)

// NewLocal returns a Local rooted at cwd (made absolute). Commands run with
// bash when it is on PATH, else sh.
func NewLocal(cwd string) *Local {
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	home, _ := os.UserHomeDir()
	shell := "/bin/sh"
	if p, err := exec.LookPath("bash"); err == nil {
		shell = p
	} else if p, err := exec.LookPath("sh"); err == nil {
		shell = p
	}
	return &Local{cwd: cwd, home: home, shell: shell, MaxReadBytes: DefaultMaxReadBytes}
}

// Cwd is the working directory.
func (l *Local) Cwd() string { return l.cwd }

// Resolve makes path absolute against Cwd, expanding a leading ~.
func (l *Local) Resolve(path string) string {
	switch {
	case path == "~" && l.home != "":
		return l.home
	case strings.HasPrefix(path, "~/") && l.home != "":
		return filepath.Join(l.home, path[2:])
	case path == "":
		return l.cwd
	case filepath.IsAbs(path):
		return filepath.Clean(path)
	default:
		return filepath.Join(l.cwd, path)
	}
}

// ReadFile reads a whole file.
func (l *Local) ReadFile(ctx context.Context, path string) ([]byte, error) {
	abs := l.Resolve(path)
	if err := ctx.Err(); err != nil {
		return nil, wrap("read", abs, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, wrap("read", abs, err)
	}
	if fi.IsDir() {
		return nil, &Error{Code: CodeIsDirectory, Op: "read", Path: abs, Err: syscall.EISDIR}
	}
	if l.MaxReadBytes > 0 && fi.Size() > l.MaxReadBytes {
		return nil, &Error{Code: CodeTooLarge, Op: "read", Path: abs,
			Err: fmt.Errorf("file is %d bytes, limit is %d", fi.Size(), l.MaxReadBytes)}
	}
	data, err := os.ReadFile(abs)
	return data, wrap("read", abs, err)
}

// WriteFile writes a whole file, creating parent directories (0755). An
// existing file keeps its mode; a new one gets 0644. The write is atomic
// (temp file + rename) unless the file has several hard links or its
// directory is not writable, in which case it is rewritten in place. A
// symbolic link is followed: its target is written.
func (l *Local) WriteFile(ctx context.Context, path string, data []byte) error {
	abs := l.Resolve(path)
	if err := ctx.Err(); err != nil {
		return wrap("write", abs, err)
	}
	if target, err := filepath.EvalSymlinks(abs); err == nil {
		abs = target
	}
	mode := fs.FileMode(0o644)
	inPlace := false
	if fi, err := os.Stat(abs); err == nil {
		if fi.IsDir() {
			return &Error{Code: CodeIsDirectory, Op: "write", Path: abs, Err: syscall.EISDIR}
		}
		mode = fi.Mode().Perm()
		inPlace = hardLinks(fi) > 1
	}
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return wrap("write", abs, err)
	}
	if !inPlace {
		err := writeAtomic(abs, dir, data, mode)
		if err == nil || !errors.Is(err, fs.ErrPermission) {
			return wrap("write", abs, err)
		}
		// The directory refused the temp file; the file itself may still be writable.
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return wrap("write", abs, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return wrap("write", abs, err)
}

func writeAtomic(abs, dir string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(abs)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, abs); err != nil {
		return err
	}
	ok = true
	return nil
}

func infoOf(fi fs.FileInfo) FileInfo {
	return FileInfo{
		Name:      fi.Name(),
		Size:      fi.Size(),
		Mode:      fi.Mode(),
		ModTime:   fi.ModTime(),
		IsDir:     fi.IsDir(),
		IsSymlink: fi.Mode()&fs.ModeSymlink != 0,
	}
}

// Stat describes a file, following links.
func (l *Local) Stat(ctx context.Context, path string) (FileInfo, error) {
	abs := l.Resolve(path)
	if err := ctx.Err(); err != nil {
		return FileInfo{}, wrap("stat", abs, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return FileInfo{}, wrap("stat", abs, err)
	}
	return infoOf(fi), nil
}

// Lstat describes a file without following a final link.
func (l *Local) Lstat(ctx context.Context, path string) (FileInfo, error) {
	abs := l.Resolve(path)
	if err := ctx.Err(); err != nil {
		return FileInfo{}, wrap("lstat", abs, err)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return FileInfo{}, wrap("lstat", abs, err)
	}
	return infoOf(fi), nil
}

// ReadDir lists a directory, sorted by name; entries are Lstat'ed. Entries
// that vanish while being listed are skipped.
func (l *Local) ReadDir(ctx context.Context, path string) ([]FileInfo, error) {
	abs := l.Resolve(path)
	if err := ctx.Err(); err != nil {
		return nil, wrap("readdir", abs, err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, wrap("readdir", abs, err)
	}
	out := make([]FileInfo, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, infoOf(fi))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// RealPath returns the absolute path with every link resolved.
func (l *Local) RealPath(ctx context.Context, path string) (string, error) {
	abs := l.Resolve(path)
	if err := ctx.Err(); err != nil {
		return "", wrap("realpath", abs, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", wrap("realpath", abs, err)
	}
	return real, nil
}
