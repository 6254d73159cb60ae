package protocol

import (
	"encoding/json"
	"time"
)

// SessionInfo is one session of session/list.
type SessionInfo struct {
	ID           string `json:"id"`
	Path         string `json:"path"`
	Cwd          string `json:"cwd"`
	Name         string `json:"name,omitempty"`
	FirstMessage string `json:"firstMessage"`
	// LastMessage is the last user prompt when there is more than one.
	LastMessage   string    `json:"lastMessage,omitempty"`
	ParentSession string    `json:"parentSession,omitempty"`
	Created       time.Time `json:"created"`
	Modified      time.Time `json:"modified"`
	EntryCount    int       `json:"entryCount"`
}

// SessionListResult is the result of session/list, newest first.
type SessionListResult struct {
	Sessions []SessionInfo `json:"sessions"`
}

// EntriesResult is the result of session/entries: session file lines as
// they are stored (pi's v3 JSONL entries).
type EntriesResult struct {
	Entries []json.RawMessage `json:"entries"`
}

// ExportResult is the result of session/export.
type ExportResult struct {
	Text string `json:"text"`
}
