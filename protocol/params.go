package protocol

// Params of the agent, configuration and session methods (docs/protocol.md
// has each method's example). Absent members are their zero value; the
// server answers -32602 for a required member that is missing. omitempty
// marks a member optional in the generated TypeScript and schema.

// PromptParams are the params of agent/prompt.
type PromptParams struct {
	Text   string        `json:"text"`
	Images []PromptImage `json:"images,omitempty"`
	// StreamingBehavior says what to do when a run is going: "steer",
	// "followUp" or "interrupt" ("" refuses with -32001).
	StreamingBehavior string           `json:"streamingBehavior,omitempty"`
	Context           []ContextItem    `json:"context,omitempty"`
	Resources         []PromptResource `json:"resources,omitempty"`
}

// PromptImage is an image attached to a prompt: base64 data of an image/*
// type.
type PromptImage struct {
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// TextParams are the params of agent/steer, agent/followUp and
// agent/interrupt.
type TextParams struct {
	Text string `json:"text"`
}

// BashParams are the params of agent/bash.
type BashParams struct {
	Command            string `json:"command"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`
}

// ModelSetParams are the params of model/set.
type ModelSetParams struct {
	Model string `json:"model"` // provider/id
}

// ThinkingSetParams are the params of thinking/set.
type ThinkingSetParams struct {
	Level string `json:"level"`
}

// ModeSetParams are the params of mode/set: a mode, yolo, or both.
type ModeSetParams struct {
	Mode string `json:"mode,omitempty"`
	Yolo *bool  `json:"yolo,omitempty"`
}

// CompactionRunParams are the params of compaction/run.
type CompactionRunParams struct {
	CustomInstructions string `json:"customInstructions,omitempty"`
}

// CompactionSetAutoParams are the params of compaction/setAuto.
type CompactionSetAutoParams struct {
	Enabled *bool `json:"enabled"`
}

// PermissionsSetParams are the params of permissions/set: policies
// ("allow", "ask", "deny", or "" to clear) by tool and by category.
type PermissionsSetParams struct {
	Tools       map[string]string `json:"tools,omitempty"`
	Categories  map[string]string `json:"categories,omitempty"`
	Yolo        *bool             `json:"yolo,omitempty"`
	ClearGrants bool              `json:"clearGrants,omitempty"`
}

// SessionNewParams are the params of session/new.
type SessionNewParams struct {
	Cwd string `json:"cwd,omitempty"`
}

// SessionOpenParams are the params of session/open.
type SessionOpenParams struct {
	Path string `json:"path"`
}

// SessionListParams are the params of session/list.
type SessionListParams struct {
	Cwd              string `json:"cwd,omitempty"`
	All              bool   `json:"all,omitempty"`
	IncludeSubagents bool   `json:"includeSubagents,omitempty"`
	IncludeEmpty     bool   `json:"includeEmpty,omitempty"`
}

// SessionEntriesParams are the params of session/entries.
type SessionEntriesParams struct {
	IDs    []string `json:"ids,omitempty"`
	FromID string   `json:"fromId,omitempty"`
	Limit  int      `json:"limit,omitempty"`
}

// SessionSetNameParams are the params of session/setName.
type SessionSetNameParams struct {
	Name *string `json:"name"`
}

// SessionLabelParams are the params of session/label.
type SessionLabelParams struct {
	EntryID string `json:"entryId"`
	Label   string `json:"label,omitempty"`
}

// SessionExportParams are the params of session/export.
type SessionExportParams struct {
	Format string `json:"format,omitempty"`
}

// EmptyParams are the params of a method that takes none (absent, null or
// {}); EmptyResult is the result of one that answers nothing but success.
type (
	EmptyParams = struct{}
	EmptyResult = struct{}
)
