package env

import (
	"context"
)

// BufferReader returns the editor's text for an absolute path: ok is false
// when the editor has no buffer for it.
type BufferReader func(ctx context.Context, path string) (text string, ok bool, err error)

// Editor is an Env whose ReadFile prefers the editor's buffers (saved or
// not) over the disk, so the agent reads what the user sees. Everything
// else, writes included, goes to the wrapped Env; a failing editor falls
// back to the disk.
type Editor struct {
	Env
	Read BufferReader
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
