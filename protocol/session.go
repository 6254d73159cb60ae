package protocol

import (
	"encoding/json"
	"time"
)

// SessionInfo is one session of session/list.
type SessionInfo struct {
	ID            string    `json:"id"`
	Path          string    `json:"path"`
	Cwd           string    `json:"cwd"`
	Name          string    `json:"name,omitempty"`
	FirstMessage  string    `json:"firstMessage"`
	ParentSession string    `json:"parentSession,omitempty"`
	Created       time.Time `json:"created"`
	Modified      time.Time `json:"modified"`
	EntryCount    int       `json:"entryCount"`
}

// SessionListResult is the result of session/list, newest first.
type SessionListResult struct {
	Sessions []SessionInfo `json:"sessions"`
}

// TreeResult is the result of session/tree.
type TreeResult struct {
	LeafID string      `json:"leafId"`
	Roots  []*TreeNode `json:"roots"`
}

// TreeNode is one entry of the session tree.
type TreeNode struct {
	ID        string      `json:"id"`
	ParentID  string      `json:"parentId"`
	Type      string      `json:"type"`
	Role      string      `json:"role,omitempty"`
	Preview   string      `json:"preview"`
	Label     string      `json:"label,omitempty"`
	Timestamp string      `json:"timestamp"`
	OnBranch  bool        `json:"onBranch"`
	Children  []*TreeNode `json:"children"`
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
