package protocol

import "time"

// Results of session, agent and configuration methods.

// SessionResult is the result of session/new, session/open, session/fork
// and session/clone.
type SessionResult struct {
	SessionID  string `json:"sessionId"`
	Path       string `json:"path"`
	EditorText string `json:"editorText,omitempty"` // session/fork: the forked message's text
	Attached   bool   `json:"attached,omitempty"`   // session/open of a session another process owns
	OwnerPID   int    `json:"ownerPid,omitempty"`
	// Files: session/fork and session/clone with "files": "restore".
	Files *FilesRestored `json:"files,omitempty"`
}

// SessionListItem is one session of session/list: the stored info plus a
// title, a fork marker and whether it is the current session.
type SessionListItem struct {
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
	Title         string    `json:"title"`
	Fork          bool      `json:"fork"`
	Empty         bool      `json:"empty"`
	Current       bool      `json:"current"`
}

// SessionItemsResult is the result of session/list.
type SessionItemsResult struct {
	Sessions []SessionListItem `json:"sessions"`
}

// SessionStateResult is the result of session/state.
type SessionStateResult struct {
	Phase          Phase        `json:"phase"`
	IsRunning      bool         `json:"isRunning"`
	SessionID      string       `json:"sessionId"`
	Path           string       `json:"path"`
	Cwd            string       `json:"cwd"`
	Name           string       `json:"name"`
	Model          string       `json:"model"`
	ThinkingLevel  string       `json:"thinkingLevel"`
	MessageCount   int          `json:"messageCount"`
	Mode           string       `json:"mode"`
	Yolo           bool         `json:"yolo"`
	Sandbox        SandboxState `json:"sandbox"`
	Workspace      []string     `json:"workspaceRoots"`
	Tokens         Tokens       `json:"tokens"`
	ContextTokens  int          `json:"contextTokens"`
	ContextWindow  int          `json:"contextWindow"`
	AutoCompaction bool         `json:"autoCompaction"`
	Steering       []string     `json:"steering"`
	FollowUp       []string     `json:"followUp"`
	Goal           *Goal        `json:"goal"`
}

// BashResult is the result of agent/bash.
type BashResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// NavigateResult is the result of session/navigate.
type NavigateResult struct {
	LeafID         string `json:"leafId"`
	EditorText     string `json:"editorText,omitempty"`
	SummaryEntryID string `json:"summaryEntryId,omitempty"`
	// Files: with "files": "restore", what the restore did.
	Files *FilesRestored `json:"files,omitempty"`
}

// CompactionResult is the result of compaction/run.
type CompactionResult struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	TokensBefore     int    `json:"tokensBefore"`
}

// Policy is a standing approval policy.
type Policy string

// Policies.
const (
	PolicyAllow Policy = "allow"
	PolicyAsk   Policy = "ask"
	PolicyDeny  Policy = "deny"
)

// Grants are the session's "always allow" answers.
type Grants struct {
	Tools      []string    `json:"tools"`
	Categories []string    `json:"categories"`
	Paths      []PathGrant `json:"paths,omitempty"` // outside the workspace
}

// PermissionsResult is the result of permissions/get and permissions/set.
type PermissionsResult struct {
	Yolo       bool              `json:"yolo"`
	Tools      map[string]Policy `json:"tools"`
	Categories map[string]Policy `json:"categories"`
	Grants     Grants            `json:"grants"`
}
