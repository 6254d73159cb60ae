package env

import (
	"context"
	"unicode/utf8"
)

// BufferReader returns the editor's text for an absolute path: ok is false
// when the editor has no buffer for it.
type BufferReader func(ctx context.Context, path string) (text string, ok bool, err error)

// BufferWriter writes text to an absolute path through the editor (its
// buffer, undo and review), as ACP's fs/write_text_file and the native
// fs/writeTextFile do. An error means the editor did not take it.
type BufferWriter func(ctx context.Context, path, text string) error

// Editor is an Env whose ReadFile prefers the editor's buffers (saved or
// not) over the disk, so the agent reads what the user sees, and whose
// WriteFile, when Write is set, goes through the editor so that open and
// modified buffers take the change. Everything else goes to the wrapped
// Env; a failing editor falls back to the disk.
type Editor struct {
	Env
	Read BufferReader
	// Write, when set, takes every WriteFile instead of the wrapped Env.
	Write BufferWriter
	// DiskOnError: when the editor fails (or the data is not UTF-8 text),
	// write the wrapped Env instead of failing (the native protocol's rule).
	DiskOnError bool
	// Inside, when set, says which absolute paths the editor may hold a
	// buffer for: the workspace. Reads of other paths (~/.pi/agent, the
	// ancestors of the root) go straight to the disk, so the editor is never
	// asked about files it cannot have open.
	Inside func(abs string) bool
}

// WriteFile writes through the editor when Write is set, else to the disk.
func (e *Editor) WriteFile(ctx context.Context, path string, data []byte) error {
	if e.Write == nil || (e.DiskOnError && !utf8.Valid(data)) {
		return e.Env.WriteFile(ctx, path, data)
	}
	abs := e.Resolve(path)
	if err := e.Write(ctx, abs, string(data)); err != nil {
		if e.DiskOnError && ctx.Err() == nil {
			return e.Env.WriteFile(ctx, path, data)
		}
		return &Error{Code: CodeIO, Op: "write", Path: abs, Err: err}
	}
	return nil
}

// ReadFile reads the editor's buffer when it has one, else the disk.
func (e *Editor) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if e.Read != nil {
		abs := e.Resolve(path)
		if e.Inside == nil || e.Inside(abs) {
			if text, ok, err := e.Read(ctx, abs); err == nil && ok {
				return []byte(text), nil
			}
		}
	}
	return e.Env.ReadFile(ctx, path)
}

// Disk returns the Env beneath any Editor overlay. Code that scans many
// files (grep, find, the ignore files read by a directory walk) reads the
// disk, as rg and fd do, instead of asking the editor once per file.
func Disk(e Env) Env {
	for {
		ed, ok := e.(*Editor)
		if !ok {
			return e
		}
		e = ed.Env
	}
}
