package env

import (
	"context"
	"unicode/utf8"
)

// BufferReader returns the editor's text for an absolute path: ok is false
// when the editor has no buffer for it.
type BufferReader func(ctx context.Context, path string) (text string, ok bool, err error)

// BufferWriter hands a file's new text to the editor (fs/writeTextFile),
// which applies it to its buffer (with undo) or writes the disk itself. An
// error means the editor did not take it.
type BufferWriter func(ctx context.Context, path, text string) error

// Editor is an Env whose ReadFile prefers the editor's buffers (saved or
// not) over the disk, so the agent reads what the user sees, and whose
// WriteFile, when Write is set, goes through the editor so that open and
// modified buffers take the change. Everything else goes to the wrapped
// Env; a failing editor falls back to the disk.
type Editor struct {
	Env
	Read  BufferReader
	Write BufferWriter // nil: writes go to the disk
}

// WriteFile gives data to the editor when it takes writes, else (or when
// the editor fails) writes the disk.
func (e *Editor) WriteFile(ctx context.Context, path string, data []byte) error {
	if e.Write != nil && utf8.Valid(data) {
		if err := e.Write(ctx, e.Resolve(path), string(data)); err == nil {
			return nil
		} else if ctx.Err() != nil {
			return &Error{Code: CodeAborted, Op: "write", Path: path, Err: err}
		}
	}
	return e.Env.WriteFile(ctx, path, data)
}

// ReadFile reads the editor's buffer when it has one, else the disk.
func (e *Editor) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if e.Read != nil {
		if text, ok, err := e.Read(ctx, e.Resolve(path)); err == nil && ok {
			return []byte(text), nil
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
