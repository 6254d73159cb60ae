package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pi-lsp/pi-lsp/session"
)

// What the wire layers read of the current session, as plain values: the
// session itself stays inside the harness.

// Entries returns the raw entries ids of the current session (none without
// a session). An unknown id is an ErrNotFound.
func (h *Harness) Entries(ids []string) ([]json.RawMessage, error) {
	out := []json.RawMessage{}
	s := h.currentSession()
	if s == nil {
		return out, nil
	}
	for _, id := range ids {
		e, err := s.Entry(id)
		if err != nil {
			return nil, fmt.Errorf("%w: entry %s", ErrNotFound, id)
		}
		out = append(out, e.Raw)
	}
	return out, nil
}

// BranchEntries returns the raw entries of the current branch after the
// entry fromID ("" = from the first), at most limit of them (none without
// a session). A fromID not on the branch is an ErrNotFound.
func (h *Harness) BranchEntries(fromID string, limit int) ([]json.RawMessage, error) {
	out := []json.RawMessage{}
	s := h.currentSession()
	if s == nil {
		return out, nil
	}
	branch, err := s.Branch("")
	if err != nil {
		return nil, err
	}
	start := 0
	if fromID != "" {
		start = -1
		for i, e := range branch {
			if e.ID == fromID {
				start = i + 1
			}
		}
		if start < 0 {
			return nil, fmt.Errorf("%w: entry %s on the current branch", ErrNotFound, fromID)
		}
	}
	for _, e := range branch[start:] {
		if len(out) >= limit {
			break
		}
		out = append(out, e.Raw)
	}
	return out, nil
}

// SessionFile returns the bytes of the current session's file.
func (h *Harness) SessionFile() ([]byte, error) {
	s := h.currentSession()
	if s == nil {
		return nil, ErrNoSession
	}
	data, err := os.ReadFile(s.Path())
	if err != nil {
		return nil, fmt.Errorf("read session file: %w", err)
	}
	return data, nil
}

// TreePage returns one page of the current session's tree (see
// session.TreePage); ok is false without a session.
func (h *Harness) TreePage(ctx context.Context, q session.TreeQuery) (page session.TreePageResult, ok bool, err error) {
	s := h.currentSession()
	if s == nil {
		return session.TreePageResult{}, false, nil
	}
	page, err = s.TreePage(ctx, q)
	return page, true, err
}

// BranchLine is one entry of the current branch as a line of text.
type BranchLine struct {
	ID    string
	Type  string
	Role  string // of a message entry
	Text  string // of a message entry
	Label string
}

// BranchLines lists the last n entries of the current branch and the
// branch's length (none without a session).
func (h *Harness) BranchLines(n int) (lines []BranchLine, total int, err error) {
	s := h.currentSession()
	if s == nil {
		return nil, 0, nil
	}
	branch, err := s.Branch(s.LeafID())
	if err != nil {
		return nil, 0, err
	}
	for _, e := range branch[max(0, len(branch)-n):] {
		l := BranchLine{ID: e.ID, Type: e.Type, Label: s.Label(e.ID)}
		if e.Message != nil {
			l.Role, l.Text = string(e.Message.Role), e.Message.Text()
		}
		lines = append(lines, l)
	}
	return lines, len(branch), nil
}
