package session

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/pi-lsp/pi-lsp/llm"
)

// kv is one member of an entry line being written.
type kv struct {
	key  string
	val  any
	omit bool
}

func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // write "<" as pi does, not "\u003c"
	return enc
}

// encodeLine writes members in order, as one JSON object without newline.
func encodeLine(members []kv) ([]byte, error) {
	var buf bytes.Buffer
	enc := newEncoder(&buf)
	buf.WriteByte('{')
	first := true
	for _, m := range members {
		if m.omit {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		buf.Write(quote(m.key))
		buf.WriteByte(':')
		if err := enc.Encode(m.val); err != nil {
			return nil, fmt.Errorf("session: encode %s: %w", m.key, err)
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// optional turns a caller's "details"/"data" value into a member value; nil
// (and a nil RawMessage) is omitted, as JSON.stringify drops undefined.
func optional(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case json.RawMessage:
		if len(x) == 0 {
			return nil, true
		}
	}
	return v, false
}

// newEntryID returns a random 8-hex-char id for which taken is false, like
// pi's generateId (a full uuid after 100 collisions).
func newEntryID(taken func(string) bool) string {
	var b [4]byte
	for range 100 {
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
		if id := hex.EncodeToString(b[:]); !taken(id) {
			return id
		}
	}
	return uuid.NewString()
}

// newID returns an id not used in the file.
func (s *Session) newID() string {
	return newEntryID(func(id string) bool { _, dup := s.idx.lookup(id); return dup })
}

func newIDAvoiding(used map[string]bool) string {
	return newEntryID(func(id string) bool { return used[id] })
}

// head returns the members every entry starts with.
func head(typ, id string, parent *string, ts string) []kv {
	return []kv{{key: "type", val: typ}, {key: "id", val: id}, {key: "parentId", val: parent}, {key: "timestamp", val: ts}}
}

// appendEntry writes one entry as a child of the current leaf (or of
// *parentOverride when set), fsyncs it, indexes it and returns its id.
func (s *Session) appendEntry(ctx context.Context, typ string, li lineInfo, body func(id string, parent *string, ts string) []kv, parentOverride *int32) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", ErrClosed
	}
	if s.readOnly {
		if s.newerFormat {
			return "", &FormatError{Path: s.path, Version: s.fileVersion}
		}
		return "", ErrReadOnly
	}
	if err := s.catchUp(ctx, false); err != nil {
		return "", err
	}
	id := s.newID()
	p := s.idx.leaf
	if parentOverride != nil {
		p = *parentOverride
	}
	var parent *string
	if p != none {
		pid := s.idx.id(p)
		parent = &pid
	}
	ts := nowISO()
	line, err := encodeLine(body(id, parent, ts))
	if err != nil {
		return "", err
	}
	li.typ, li.id, li.hasID, li.hasParent = typ, id, true, true
	if parent != nil {
		li.parent = *parent
	} else {
		li.parentNull = true
	}
	if err := s.writeLine(li, line); err != nil {
		return "", err
	}
	return id, nil
}

// writeLine appends line (plus newline) to the file, fsyncs and indexes it.
// Called with s.mu held.
func (s *Session) writeLine(li lineInfo, line []byte) error {
	buf := make([]byte, 0, len(line)+2)
	off := s.size
	if s.needNL {
		buf = append(buf, '\n') // start after a torn last line, never inside it
		off++
	}
	buf = append(buf, line...)
	buf = append(buf, '\n')
	n, err := s.f.Write(buf)
	if err != nil {
		// Part of the line may be on disk: the next write starts on a fresh line.
		s.size += int64(n)
		s.needNL = n > 0
		return fmt.Errorf("session: append to %s: %w", s.path, err)
	}
	s.size += int64(n)
	s.needNL = false
	s.lineNo++
	i := int32(len(s.idx.recs))
	if full, err := scanLine(line); err == nil {
		// The index keeps an answer's usage (see usageRec) and every
		// entry's display counts (see items.go).
		li.usage, li.stopReason = full.usage, full.stopReason
		li.content, li.display, li.msgDisplay, li.summary = full.content, full.display, full.msgDisplay, full.summary
		li.activity, li.hasActivity = full.activity, full.hasActivity
	}
	s.idx.add(li, line, off)
	s.idx.recs[i].line = int32(s.lineNo)
	s.idx.link(i)
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("session: fsync %s: %w", s.path, err)
	}
	s.keepSidecarCurrent(false)
	return nil
}

// AppendMessage appends a message entry as a child of the leaf and returns
// its id once it is fsynced. A zero Timestamp is set to now.
func (s *Session) AppendMessage(ctx context.Context, m llm.Message) (string, error) {
	if m.Timestamp == 0 {
		m.Timestamp = time.Now().UnixMilli()
	}
	return s.appendEntry(ctx, TypeMessage, lineInfo{role: string(m.Role)}, func(id string, parent *string, ts string) []kv {
		return append(head(TypeMessage, id, parent, ts), kv{key: "message", val: m})
	}, nil)
}

// AppendModelChange records a model switch.
func (s *Session) AppendModelChange(ctx context.Context, provider, modelID string) (string, error) {
	return s.appendEntry(ctx, TypeModelChange, lineInfo{}, func(id string, parent *string, ts string) []kv {
		return append(head(TypeModelChange, id, parent, ts), kv{key: "provider", val: provider}, kv{key: "modelId", val: modelID})
	}, nil)
}

// AppendThinkingLevel records a thinking level change.
func (s *Session) AppendThinkingLevel(ctx context.Context, level string) (string, error) {
	return s.appendEntry(ctx, TypeThinkingLevel, lineInfo{}, func(id string, parent *string, ts string) []kv {
		return append(head(TypeThinkingLevel, id, parent, ts), kv{key: "thinkingLevel", val: level})
	}, nil)
}

// AppendCompaction records a compaction: the context becomes summary, then
// the branch from firstKeptEntryID, then what follows this entry.
func (s *Session) AppendCompaction(ctx context.Context, summary, firstKeptEntryID string, tokensBefore int, details any, fromHook bool) (string, error) {
	d, omit := optional(details)
	return s.appendEntry(ctx, TypeCompaction, lineInfo{}, func(id string, parent *string, ts string) []kv {
		return append(head(TypeCompaction, id, parent, ts),
			kv{key: "summary", val: summary}, kv{key: "firstKeptEntryId", val: firstKeptEntryID},
			kv{key: "tokensBefore", val: tokensBefore}, kv{key: "details", val: d, omit: omit},
			kv{key: "fromHook", val: true, omit: !fromHook})
	}, nil)
}

// AppendBranchSummary records a summary of the branch left at fromID, as a
// child of the current leaf (navigate first).
func (s *Session) AppendBranchSummary(ctx context.Context, fromID, summary string, details any, fromHook bool) (string, error) {
	d, omit := optional(details)
	return s.appendEntry(ctx, TypeBranchSummary, lineInfo{}, func(id string, parent *string, ts string) []kv {
		return append(head(TypeBranchSummary, id, parent, ts),
			kv{key: "fromId", val: fromID}, kv{key: "summary", val: summary},
			kv{key: "details", val: d, omit: omit}, kv{key: "fromHook", val: true, omit: !fromHook})
	}, nil)
}

// AppendCustom records extension state (not part of the model's context).
// pi-lsp's own state uses customType "pi-lsp/<thing>".
func (s *Session) AppendCustom(ctx context.Context, customType string, data any) (string, error) {
	d, omit := optional(data)
	return s.appendEntry(ctx, TypeCustom, lineInfo{customType: customType}, func(id string, parent *string, ts string) []kv {
		return []kv{{key: "type", val: TypeCustom}, {key: "customType", val: customType}, {key: "data", val: d, omit: omit},
			{key: "id", val: id}, {key: "parentId", val: parent}, {key: "timestamp", val: ts}}
	}, nil)
}

// AppendCustomMessage records an extension message that is part of the
// model's context.
func (s *Session) AppendCustomMessage(ctx context.Context, customType string, content []llm.ContentBlock, display bool, details any) (string, error) {
	d, omit := optional(details)
	if content == nil {
		content = []llm.ContentBlock{}
	}
	return s.appendEntry(ctx, TypeCustomMessage, lineInfo{customType: customType}, func(id string, parent *string, ts string) []kv {
		return []kv{{key: "type", val: TypeCustomMessage}, {key: "customType", val: customType}, {key: "content", val: content},
			{key: "display", val: display}, {key: "details", val: d, omit: omit},
			{key: "id", val: id}, {key: "parentId", val: parent}, {key: "timestamp", val: ts}}
	}, nil)
}

// SetLabel sets (or with "" clears) the label of an entry.
func (s *Session) SetLabel(ctx context.Context, targetID, label string) error {
	if !s.has(targetID) {
		return fmt.Errorf("session: label %s: %w", targetID, ErrNotFound)
	}
	_, err := s.appendEntry(ctx, TypeLabel, lineInfo{}, func(id string, parent *string, ts string) []kv {
		return append(head(TypeLabel, id, parent, ts), kv{key: "targetId", val: targetID}, kv{key: "label", val: label, omit: label == ""})
	}, nil)
	return err
}

// SetName records the session's display name (trimmed; "" clears it).
func (s *Session) SetName(ctx context.Context, name string) error {
	name = strings.TrimSpace(name)
	_, err := s.appendEntry(ctx, TypeSessionInfo, lineInfo{}, func(id string, parent *string, ts string) []kv {
		return append(head(TypeSessionInfo, id, parent, ts), kv{key: "name", val: name})
	}, nil)
	return err
}

// Navigate moves the leaf to targetID ("" = before the first entry). The
// move is recorded as a leaf entry whose parentId is the target, so that pi,
// which takes the last entry as the leaf, lands on the same branch. Moving
// to the current leaf writes nothing.
func (s *Session) Navigate(ctx context.Context, targetID string) error {
	s.mu.RLock()
	t := none
	ok := true
	if targetID != "" {
		t, ok = s.idx.lookup(targetID)
	}
	same := ok && t == s.idx.leaf
	s.mu.RUnlock()
	if !ok {
		return fmt.Errorf("session: navigate to %s: %w", targetID, ErrNotFound)
	}
	if same {
		return ctx.Err()
	}
	_, err := s.appendEntry(ctx, TypeLeaf, lineInfo{}, func(id string, parent *string, ts string) []kv {
		return append(head(TypeLeaf, id, parent, ts), kv{key: "targetId", val: parent})
	}, &t)
	return err
}

func (s *Session) has(id string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.idx.lookup(id)
	return ok
}
