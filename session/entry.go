package session

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
)

// CurrentVersion is the session format version this package writes (pi's
// CURRENT_SESSION_VERSION).
const CurrentVersion = 3

// Entry types of pi's v3 format, plus "leaf" (a recorded leaf move).
const (
	TypeSession        = "session"
	TypeMessage        = "message"
	TypeModelChange    = "model_change"
	TypeThinkingLevel  = "thinking_level_change"
	TypeCompaction     = "compaction"
	TypeBranchSummary  = "branch_summary"
	TypeCustom         = "custom"
	TypeCustomMessage  = "custom_message"
	TypeLabel          = "label"
	TypeSessionInfo    = "session_info"
	TypeLeaf           = "leaf"
	timestampLayoutISO = "2006-01-02T15:04:05.000Z"
)

// Header is the first line of a session file.
type Header struct {
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
}

// MarshalJSON writes the header line as pi does, "type" first.
func (h Header) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type          string `json:"type"`
		Version       int    `json:"version"`
		ID            string `json:"id"`
		Timestamp     string `json:"timestamp"`
		Cwd           string `json:"cwd"`
		ParentSession string `json:"parentSession,omitempty"`
	}{TypeSession, h.Version, h.ID, h.Timestamp, h.Cwd, h.ParentSession})
}

// Entry is one decoded session entry. Only the fields of its Type are set.
// Raw is the entry's JSON line exactly as stored (after in-memory migration
// of v1/v2 files), so unknown fields and unknown types survive.
type Entry struct {
	Type, ID, ParentID, Timestamp string // ParentID "" means null

	// message
	Message *llm.Message

	// model_change
	Provider, ModelID string

	// thinking_level_change
	ThinkingLevel string

	// compaction, branch_summary (Details also custom_message)
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	Details          json.RawMessage
	FromHook         bool

	// branch_summary
	FromID string

	// custom (CustomType also custom_message)
	CustomType string
	Data       json.RawMessage

	// custom_message
	Content []llm.ContentBlock
	Display bool

	// label (Label nil = cleared); leaf (TargetID "" = before the first entry)
	TargetID string
	Label    *string

	// session_info
	Name string

	Raw json.RawMessage
}

// MarshalJSON returns the stored line.
func (e Entry) MarshalJSON() ([]byte, error) {
	if len(e.Raw) == 0 {
		return nil, fmt.Errorf("session: entry %s has no raw line", e.ID)
	}
	return e.Raw, nil
}

// TimestampMillis parses the entry's ISO timestamp as JavaScript's
// new Date(ts).getTime() would (0 if it does not parse).
func (e *Entry) TimestampMillis() int64 { return isoMillis(e.Timestamp) }

func isoMillis(ts string) int64 {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// decodeEntry decodes one entry line (already migrated).
func decodeEntry(line []byte) (*Entry, error) {
	var aux struct {
		Type             string          `json:"type"`
		ID               string          `json:"id"`
		ParentID         json.RawMessage `json:"parentId"`
		Timestamp        json.RawMessage `json:"timestamp"`
		Message          *llm.Message    `json:"message"`
		Provider         string          `json:"provider"`
		ModelID          string          `json:"modelId"`
		ThinkingLevel    string          `json:"thinkingLevel"`
		Summary          string          `json:"summary"`
		FirstKeptEntryID string          `json:"firstKeptEntryId"`
		TokensBefore     float64         `json:"tokensBefore"`
		Details          json.RawMessage `json:"details"`
		FromHook         bool            `json:"fromHook"`
		FromID           string          `json:"fromId"`
		CustomType       string          `json:"customType"`
		Data             json.RawMessage `json:"data"`
		Content          json.RawMessage `json:"content"`
		Display          bool            `json:"display"`
		TargetID         json.RawMessage `json:"targetId"`
		Label            *string         `json:"label"`
		Name             string          `json:"name"`
	}
	if err := json.Unmarshal(line, &aux); err != nil {
		return nil, fmt.Errorf("session: decode entry: %w", err)
	}
	e := &Entry{
		Type: aux.Type, ID: aux.ID,
		ParentID: rawString(aux.ParentID), Timestamp: rawString(aux.Timestamp),
		Provider: aux.Provider, ModelID: aux.ModelID, ThinkingLevel: aux.ThinkingLevel,
		Summary: aux.Summary, FirstKeptEntryID: aux.FirstKeptEntryID, TokensBefore: int(aux.TokensBefore),
		Details: nullToNil(aux.Details), FromHook: aux.FromHook, FromID: aux.FromID,
		CustomType: aux.CustomType, Data: nullToNil(aux.Data), Display: aux.Display,
		TargetID: rawString(aux.TargetID), Label: aux.Label, Name: aux.Name,
		Raw: append(json.RawMessage(nil), line...),
	}
	if e.Label != nil && *e.Label == "" {
		e.Label = nil
	}
	e.Message = aux.Message
	if aux.Type == TypeCustomMessage {
		c, err := llm.DecodeContent(aux.Content)
		if err != nil {
			return nil, fmt.Errorf("session: entry %s: %w", e.ID, err)
		}
		e.Content = c
	}
	return e, nil
}

// rawString returns the JSON string in raw, or "" for null, absent or a
// non-string.
func rawString(raw json.RawMessage) string {
	s, _ := stringValue(raw)
	return s
}

func nullToNil(raw json.RawMessage) json.RawMessage {
	if string(raw) == "null" {
		return nil
	}
	return raw
}

// decodeHeader decodes a header line; ok is false when the line is not a
// session header (pi requires type "session" and a string id).
func decodeHeader(line []byte) (h Header, ok bool) {
	var aux struct {
		Type          string          `json:"type"`
		Version       json.RawMessage `json:"version"`
		ID            json.RawMessage `json:"id"`
		Timestamp     json.RawMessage `json:"timestamp"`
		Cwd           json.RawMessage `json:"cwd"`
		ParentSession json.RawMessage `json:"parentSession"`
	}
	if json.Unmarshal(line, &aux) != nil || aux.Type != TypeSession {
		return h, false
	}
	id, isString := stringValue(aux.ID)
	if !isString {
		return h, false
	}
	h = Header{ID: id, Timestamp: rawString(aux.Timestamp), Cwd: rawString(aux.Cwd), ParentSession: rawString(aux.ParentSession)}
	var v float64
	if json.Unmarshal(aux.Version, &v) == nil && v >= 1 {
		h.Version = int(v)
	} else {
		h.Version = 1 // pi: header.version ?? 1
	}
	return h, true
}
