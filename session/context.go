package session

import (
	"context"
	"encoding/json"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Context is what the model sees for the current branch, as pi's
// buildSessionContext computes it.
type Context struct {
	Messages      []llm.Message
	EntryIDs      []string // the entry each message came from (the compaction for its summary)
	Provider      string   // "" when no model was chosen on the branch
	ModelID       string
	ThinkingLevel string // "off" unless changed on the branch
}

// ContextInfo summarises BuildContext without decoding the messages.
type ContextInfo struct {
	Messages      int    `json:"messages"`
	Provider      string `json:"provider,omitempty"`
	ModelID       string `json:"modelId,omitempty"`
	ThinkingLevel string `json:"thinkingLevel"`
	CompactionID  string `json:"compactionId,omitempty"` // the compaction in effect
}

// plan is the result of walking the branch: which entries give messages.
type plan struct {
	compaction int32   // none if no compaction on the branch
	emit       []int32 // entries that may give a message, in order
	kept       int     // emit[:kept] were kept from before the compaction
	model      int32   // the last model_change or assistant message, none if none
	thinking   int32   // the last thinking_level_change, none if none
}

// planContext walks the branch to the leaf as buildSessionContext does:
// settings are folded along the whole path; with a compaction the messages
// are its summary, the path from firstKeptEntryId up to it, then the rest.
// Called with s.mu held.
func (s *Session) planContext() (plan, error) {
	// Several readers plan the same branch in a row (opening a session
	// asks for the settings, the usage, the display slots and the recent
	// messages): walk a 100k-entry branch once. Records never change once
	// indexed, so the branch is the same while the leaf and the record
	// count are.
	key := planKey{leaf: s.idx.leaf, n: len(s.idx.recs), ok: true}
	s.planMu.Lock()
	defer s.planMu.Unlock()
	if s.planKey == key {
		return s.planVal, nil
	}
	p, err := s.walkPlan()
	if err == nil {
		s.planKey, s.planVal = key, p
	}
	return p, err
}

// planKey identifies the branch a memoized plan was made for.
type planKey struct {
	leaf int32
	n    int
	ok   bool
}

// walkPlan is planContext without the memo.
func (s *Session) walkPlan() (plan, error) {
	x := &s.idx
	p := plan{compaction: none, model: none, thinking: none}
	path := x.path(x.leaf)
	for _, i := range path {
		switch r := &x.recs[i]; {
		case r.kind == kThinking:
			p.thinking = i
		case r.kind == kModelChange, r.kind == kMessage && r.role == roleOf("assistant"):
			p.model = i
		}
	}
	ci, c := s.lastCompaction(path)
	if ci < 0 {
		p.emit = path
		return p, nil
	}
	p.compaction = path[ci]
	kept := false
	for _, i := range path[:ci] {
		if x.idIs(i, c.FirstKeptEntryID) {
			kept = true
		}
		if kept {
			p.emit = append(p.emit, i)
		}
	}
	p.kept = len(p.emit)
	p.emit = append(p.emit, path[ci+1:]...)
	return p, nil
}

// lastCompaction is the index in path of the last compaction on it that
// decodes, and the compaction (-1 and nil when there is none); one that
// does not decode is left out with a warning.
func (s *Session) lastCompaction(path []int32) (int, *Entry) {
	for k := len(path) - 1; k >= 0; k-- {
		if s.idx.recs[path[k]].kind != kCompaction {
			continue
		}
		if c := s.decodeOrWarn(path[k]); c != nil {
			return k, c
		}
	}
	return -1, nil
}

// settings decodes the model and thinking level of a plan.
func (s *Session) settings(p plan) (provider, modelID, thinking string, err error) {
	thinking = "off"
	if p.thinking != none {
		if e := s.decodeOrWarn(p.thinking); e != nil {
			thinking = e.ThinkingLevel
		}
	}
	if p.model != none {
		if s.idx.recs[p.model].kind == kModelChange {
			if e := s.decodeOrWarn(p.model); e != nil {
				provider, modelID = e.Provider, e.ModelID
			}
		} else {
			// Only the assistant's provider and model are needed: read them
			// without decoding a possibly large message.
			line, err := s.line(p.model)
			if err != nil {
				return "", "", "", err
			}
			m, _ := getMember(line, "message")
			pv, _ := getMember(m, "provider")
			mv, _ := getMember(m, "model")
			provider, modelID = rawString(pv), rawString(mv)
		}
	}
	return provider, modelID, thinking, nil
}

// contextHead is what BuildContext and ContextInfo share: the plan of the
// current branch and its folded settings, written to provider, modelID and
// thinking. ok is false for an empty branch. The caller holds s.mu.
func (s *Session) contextHead(provider, modelID, thinking *string) (p plan, ok bool, err error) {
	if s.closed {
		return p, false, ErrClosed
	}
	if s.idx.leaf == none {
		return p, false, nil
	}
	if p, err = s.planContext(); err != nil {
		return p, false, err
	}
	if *provider, *modelID, *thinking, err = s.settings(p); err != nil {
		return p, false, err
	}
	return p, true, nil
}

// BuildContext returns the messages for the model on the current branch,
// exactly as pi's buildSessionContext: settings folded, the last compaction
// applied, branch summaries (non-empty) and custom messages converted.
func (s *Session) BuildContext(ctx context.Context) (Context, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := Context{ThinkingLevel: "off"}
	p, ok, err := s.contextHead(&out.Provider, &out.ModelID, &out.ThinkingLevel)
	if err != nil || !ok {
		return out, err
	}
	if p.compaction != none {
		c, err := s.decode(p.compaction) // planContext decoded it
		if err != nil {
			return out, err
		}
		out.Messages = append(out.Messages, llm.Message{Role: llm.RoleCompactionSummary, Summary: c.Summary, TokensBefore: c.TokensBefore, Timestamp: c.TimestampMillis()})
		out.EntryIDs = append(out.EntryIDs, c.ID)
	}
	for k, i := range p.emit {
		if k%256 == 0 {
			if err := ctx.Err(); err != nil {
				return Context{}, err
			}
		}
		r := &s.idx.recs[i]
		if !r.kind.inContext() {
			continue
		}
		m, ok, hit := s.cache.get(i)
		if !hit {
			e := s.decodeOrWarn(i)
			if e == nil {
				continue
			}
			m, ok = e.ContextMessage()
			s.cache.put(i, int(r.n), m, ok)
		}
		if ok {
			out.Messages = append(out.Messages, m)
			out.EntryIDs = append(out.EntryIDs, s.idx.id(i))
		}
	}
	return out, nil
}

// inContext reports whether entries of this kind can give a message.
func (k kind) inContext() bool {
	return k == kMessage || k == kCustomMessage || k == kBranchSummary
}

// ContextMessage is the message the entry gives the model's context (pi's
// appendMessage inside buildSessionContext): ok is false for entries that
// give none.
func (e *Entry) ContextMessage() (llm.Message, bool) {
	switch e.Type {
	case TypeMessage:
		if e.Message == nil {
			return llm.Message{}, false
		}
		return *e.Message, true
	case TypeCustomMessage:
		return llm.Message{Role: llm.RoleCustom, CustomType: e.CustomType, Content: e.Content, Display: e.Display, Details: e.Details, Timestamp: e.TimestampMillis()}, true
	case TypeBranchSummary:
		if e.Summary == "" {
			return llm.Message{}, false
		}
		return llm.Message{Role: llm.RoleBranchSummary, Summary: e.Summary, FromID: e.FromID, Timestamp: e.TimestampMillis()}, true
	}
	return llm.Message{}, false
}

// ContextInfo counts the messages BuildContext would return and reports the
// model and thinking level, decoding only small entries. It is what
// "pi-lsp sessions show" prints, cheap even on huge sessions.
func (s *Session) ContextInfo(ctx context.Context) (ContextInfo, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := ContextInfo{ThinkingLevel: "off"}
	p, ok, err := s.contextHead(&out.Provider, &out.ModelID, &out.ThinkingLevel)
	if err != nil || !ok {
		return out, err
	}
	if p.compaction != none {
		out.Messages++
		out.CompactionID = s.idx.id(p.compaction)
	}
	for k, i := range p.emit {
		if k%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return ContextInfo{}, err
			}
		}
		switch s.idx.recs[i].kind {
		case kMessage:
			if s.idx.recs[i].role != 0 {
				out.Messages++
			}
		case kCustomMessage:
			out.Messages++
		case kBranchSummary:
			if e, err := s.decode(i); err == nil && e.Summary != "" {
				out.Messages++
			}
		}
	}
	return out, nil
}

// LatestCustom returns the data of the newest custom entry of customType on
// the current branch (pi-lsp restores its state from these).
func (s *Session) LatestCustom(customType string) (json.RawMessage, bool) {
	return s.latestCustom(customType, (*index).leafToRoot)
}

// ContextEntries returns the part of the current branch the model's context
// is made of, root to leaf: from the latest compaction's first kept entry
// (or from the compaction itself when that entry is not on the branch) to
// the leaf, the compaction included; the whole branch when it has none. It
// is what compaction plans its cut on before every model call, so message
// entries come from the message cache BuildContext fills: they carry ID,
// ParentID, Type and Message only. Other entries are decoded whole.
func (s *Session) ContextEntries(ctx context.Context) ([]*Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.idx.leaf == none {
		return nil, nil
	}
	path := s.idx.path(s.idx.leaf)
	start := 0
	if k, c := s.lastCompaction(path); k >= 0 {
		start = k
		for j := range k {
			if s.idx.idIs(path[j], c.FirstKeptEntryID) {
				start = j
				break
			}
		}
	}
	out := make([]*Entry, 0, len(path)-start)
	for k, i := range path[start:] {
		if k%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r := &s.idx.recs[i]
		if r.kind != kMessage {
			if e := s.decodeOrWarn(i); e != nil {
				out = append(out, e)
			}
			continue
		}
		m, ok, hit := s.cache.get(i)
		if !hit {
			e := s.decodeOrWarn(i)
			if e == nil {
				continue
			}
			m, ok = e.ContextMessage()
			s.cache.put(i, int(r.n), m, ok)
		}
		e := &Entry{ID: s.idx.id(i), Type: TypeMessage}
		if r.parent != none {
			e.ParentID = s.idx.id(r.parent)
		}
		if ok {
			e.Message = &m
		}
		out = append(out, e)
	}
	return out, nil
}
