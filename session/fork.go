package session

import (
	"bufio"
	"context"
	"fmt"

	"github.com/pi-lsp/pi-lsp/llm"
)

// ForkOptions configures ForkWith.
type ForkOptions struct {
	// At forks with the path ending at the entry; otherwise the entry must
	// be a user message and the path ends just before it.
	At bool
	// Hidden and Dir are as in CreateOptions (Dir defaults to the source
	// cwd's directory under root).
	Hidden bool
	Dir    string
}

// Fork writes a new session holding the path from the root to entryID (at)
// or to just before the user message entryID (!at; that message's text,
// Entry.UserText, is what an editor gets back to edit and resend), with
// parentSession set to src's file. It follows pi's createBranchedSession:
// label entries are not copied along the path; the labels of the copied
// entries are written again at its end.
func Fork(ctx context.Context, src *Session, root, entryID string, at bool) (*Session, error) {
	return ForkWith(ctx, src, root, entryID, ForkOptions{At: at})
}

// Clone writes a new session holding the current branch of src.
func Clone(ctx context.Context, src *Session, root string) (*Session, error) {
	return CloneWith(ctx, src, root, ForkOptions{})
}

// CloneWith is Clone with options (Hidden for forked subagents).
func CloneWith(ctx context.Context, src *Session, root string, opts ForkOptions) (*Session, error) {
	src.mu.RLock()
	leaf := src.idx.leaf
	src.mu.RUnlock()
	return forkFrom(ctx, src, root, leaf, opts)
}

// ForkWith is Fork with options.
func ForkWith(ctx context.Context, src *Session, root, entryID string, opts ForkOptions) (*Session, error) {
	src.mu.RLock()
	i, ok := src.idx.lookup(entryID)
	var r rec
	if ok {
		r = src.idx.recs[i]
	}
	src.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("session: fork at %s: %w", entryID, ErrNotFound)
	}
	target := i
	if !opts.At {
		if r.kind != kMessage || r.role != roleOf("user") {
			return nil, fmt.Errorf("session: fork before %s: not a user message", entryID)
		}
		target = r.parent
	}
	return forkFrom(ctx, src, root, target, opts)
}

// UserText returns the text of a user message entry, its text blocks joined
// as pi's extractUserMessageText does ("" for other entries).
func (e *Entry) UserText() string {
	if e.Message == nil || e.Message.Role != llm.RoleUser {
		return ""
	}
	return e.Message.Text()
}

// forkFrom writes the path root..target of src (none = empty) to a new file.
func forkFrom(ctx context.Context, src *Session, root string, target int32, opts ForkOptions) (*Session, error) {
	dst, err := Create(ctx, root, src.Cwd(), CreateOptions{ParentSession: src.Path(), Hidden: opts.Hidden, Dir: opts.Dir})
	if err != nil {
		return nil, err
	}
	if err := copyPath(ctx, src, dst, target); err != nil {
		dst.Close()
		return nil, fmt.Errorf("session: fork %s: %w", src.Path(), err)
	}
	return dst, nil
}

// copyPath writes the raw lines of src's path to target into dst (a fresh
// file holding only its header), then indexes dst from disk.
func copyPath(ctx context.Context, src, dst *Session, target int32) error {
	src.mu.RLock()
	defer src.mu.RUnlock()
	if src.closed {
		return ErrClosed
	}
	x := &src.idx
	w := bufio.NewWriterSize(dst.f, 256<<10)
	used := map[string]bool{}
	var kept []int32
	var last *string // id of the last copied entry
	dropped := false // the entry before this one was not copied
	for k, i := range x.path(target) {
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := &x.recs[i]
		if r.kind == kLabel || r.kind == kLeaf {
			dropped = true
			continue
		}
		line, err := src.line(i)
		if err != nil {
			return err
		}
		if dropped { // re-parent over the entries left out
			parent := []byte("null")
			if last != nil {
				parent = quote(*last)
			}
			if line, err = setMember(line, "parentId", parent); err != nil {
				return err
			}
			dropped = false
		}
		w.Write(line)
		w.WriteByte('\n')
		id := x.id(i)
		used[id] = true
		kept = append(kept, i)
		last = &id
	}
	for _, i := range kept {
		id := x.id(i)
		l, ok := x.labels[id]
		if !ok {
			continue
		}
		lid := newIDAvoiding(used)
		line, err := encodeLine(append(head(TypeLabel, lid, last, l.ts), kv{key: "targetId", val: id}, kv{key: "label", val: l.label}))
		if err != nil {
			return err
		}
		w.Write(line)
		w.WriteByte('\n')
		used[lid] = true
		last = &lid
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return dst.reload(ctx)
}

// reload syncs the file and indexes it again from disk.
func (s *Session) reload(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.f.Sync(); err != nil {
		return err
	}
	return s.load(ctx)
}
