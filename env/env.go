// Package env is the ExecutionEnv every tool and loader goes through: a
// FileSystem plus a Shell. Local is the implementation over the machine's own
// disk and bash; an editor-backed FileSystem (reading unsaved buffers over the
// wire) wraps it. Failures are *Error values with a Code, never panics.
package env

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// Code classifies an env failure.
type Code string

// Failure codes.
const (
	CodeNotFound         Code = "not_found"
	CodePermissionDenied Code = "permission_denied"
	CodeIsDirectory      Code = "is_directory"
	CodeNotDirectory     Code = "not_directory"
	CodeExists           Code = "exists"
	CodeTimeout          Code = "timeout"
	CodeAborted          Code = "aborted"
	CodeTooLarge         Code = "too_large"
	CodeInvalid          Code = "invalid"
	CodeIO               Code = "io"
)

// Error is a failure with a code, an operation and the path it concerns.
type Error struct {
	Code Code
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("%s %s: %s: %v", e.Op, e.Path, e.Code, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.Op, e.Code, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the Code of err, or "" when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// FileInfo describes a file.
type FileInfo struct {
	Name    string
	Size    int64
	Mode    fs.FileMode
	ModTime time.Time
	IsDir   bool
	// IsSymlink is set by Lstat for a symbolic link.
	IsSymlink bool
}

// FileSystem is the file access tools and loaders use. Paths are absolute or
// relative to the env's working directory.
type FileSystem interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	WriteFile(ctx context.Context, path string, data []byte) error // creates parent dirs
	Stat(ctx context.Context, path string) (FileInfo, error)       // follows links
	Lstat(ctx context.Context, path string) (FileInfo, error)
	ReadDir(ctx context.Context, path string) ([]FileInfo, error) // sorted by name; entries are Lstat'ed
	RealPath(ctx context.Context, path string) (string, error)    // absolute, links resolved
}

// ExecRequest is one shell command.
type ExecRequest struct {
	Command string
	Cwd     string            // "" = the env's cwd
	Env     map[string]string // added to the environment
	Timeout time.Duration     // 0 = none (the context still bounds it)
	// Sandbox, when set and not off, runs the command under Landlock
	// through the sandbox helper (Local.SandboxHelper).
	Sandbox *SandboxPolicy
}

// ExecResult is how a command ended. A command killed by abort or timeout
// also returns an *Error with CodeAborted or CodeTimeout.
type ExecResult struct {
	ExitCode int // -1 when killed
	// Sandboxed is the sandbox mode the command ran under ("" = none).
	Sandboxed SandboxMode
}

// Shell runs commands. onOutput receives stdout and stderr interleaved, as
// they arrive; the slice is only valid during the call. An abort (ctx done)
// kills the command's whole process group.
type Shell interface {
	Exec(ctx context.Context, req ExecRequest, onOutput func([]byte)) (ExecResult, error)
}

// Env is the ExecutionEnv: a FileSystem, a Shell and a working directory.
type Env interface {
	FileSystem
	Shell
	Cwd() string
	// Resolve makes path absolute against Cwd (and expands a leading ~).
	Resolve(path string) string
}
