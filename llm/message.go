package llm

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Role names the kind of an AgentMessage, as pi spells it.
type Role string

// The message roles pi's v3 session format knows.
const (
	RoleUser              Role = "user"
	RoleAssistant         Role = "assistant"
	RoleToolResult        Role = "toolResult"
	RoleBashExecution     Role = "bashExecution"
	RoleCustom            Role = "custom"
	RoleBranchSummary     Role = "branchSummary"
	RoleCompactionSummary Role = "compactionSummary"
)

// StopReason says why an assistant message ended.
type StopReason string

// The stop reasons of pi's AssistantMessage.
const (
	StopStop    StopReason = "stop"
	StopLength  StopReason = "length"
	StopToolUse StopReason = "toolUse"
	StopError   StopReason = "error"
	StopAborted StopReason = "aborted"
)

// Content block types.
const (
	BlockText     = "text"
	BlockImage    = "image"
	BlockThinking = "thinking"
	BlockToolCall = "toolCall"
)

// ContentBlock is one typed block of message content: text, image, thinking or
// toolCall. Only the fields of its Type are serialised.
type ContentBlock struct {
	Type string
	// text
	Text string
	// image
	Data     string
	MimeType string
	// thinking
	Thinking          string
	ThinkingSignature string
	Redacted          bool
	// toolCall
	ID        string
	Name      string
	Arguments json.RawMessage // a JSON object; nil encodes as {}
	// CutOff is set by the stream parser when the tool call's arguments
	// were not a whole JSON object when the stream ended (finish_reason
	// "length", a dropped stream): Arguments were closed as a best effort
	// and must not be executed. It is not stored.
	CutOff bool
}

// TextBlock returns a text content block.
func TextBlock(s string) ContentBlock { return ContentBlock{Type: BlockText, Text: s} }

// MarshalJSON writes the block exactly as pi does for its type.
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	switch b.Type {
	case BlockText:
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{b.Type, b.Text})
	case BlockImage:
		return json.Marshal(struct {
			Type     string `json:"type"`
			Data     string `json:"data"`
			MimeType string `json:"mimeType"`
		}{b.Type, b.Data, b.MimeType})
	case BlockThinking:
		return json.Marshal(struct {
			Type              string `json:"type"`
			Thinking          string `json:"thinking"`
			ThinkingSignature string `json:"thinkingSignature,omitempty"`
			Redacted          bool   `json:"redacted,omitempty"`
		}{b.Type, b.Thinking, b.ThinkingSignature, b.Redacted})
	case BlockToolCall:
		args := b.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return json.Marshal(struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}{b.Type, b.ID, b.Name, args})
	default:
		return nil, fmt.Errorf("llm: unknown content block type %q", b.Type)
	}
}

// Cost is the money spent on a message, by token class.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Add returns c plus o, field by field.
func (c Cost) Add(o Cost) Cost {
	return Cost{Input: c.Input + o.Input, Output: c.Output + o.Output, CacheRead: c.CacheRead + o.CacheRead,
		CacheWrite: c.CacheWrite + o.CacheWrite, Total: c.Total + o.Total}
}

// Usage is the provider-reported token usage of one assistant message.
type Usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
}

// Message is one of pi's AgentMessage variants, told apart by Role. Only the
// fields that belong to the role are serialised.
type Message struct {
	Role      Role
	Content   []ContentBlock // user, assistant, toolResult, custom
	Timestamp int64          // Unix milliseconds

	// assistant
	API          string
	Provider     string
	Model        string
	Usage        Usage
	StopReason   StopReason
	ErrorMessage string

	// toolResult
	ToolCallID string
	ToolName   string
	IsError    bool
	Details    json.RawMessage // toolResult, custom: tool- or extension-specific data; user: what pi-lsp wrote it for (harness.PlanHandoverOf)

	// bashExecution
	Command            string
	Output             string
	ExitCode           *int
	Cancelled          bool
	Truncated          bool
	FullOutputPath     string
	ExcludeFromContext bool

	// custom
	CustomType string
	Display    bool

	// branchSummary, compactionSummary
	Summary      string
	FromID       string
	TokensBefore int
}

// UserText builds a user message holding one text block.
func UserText(text string, ts int64) Message {
	return Message{Role: RoleUser, Content: []ContentBlock{TextBlock(text)}, Timestamp: ts}
}

// Text concatenates the text blocks of the message.
func (m *Message) Text() string { return JoinText(m.Content) }

// JoinText concatenates the text blocks of blocks.
func JoinText(blocks []ContentBlock) string {
	var s strings.Builder
	for i := range blocks {
		if blocks[i].Type == BlockText {
			s.WriteString(blocks[i].Text)
		}
	}
	return s.String()
}

// ToolCalls returns the toolCall blocks of an assistant message.
func (m *Message) ToolCalls() []ContentBlock {
	var out []ContentBlock
	for _, b := range m.Content {
		if b.Type == BlockToolCall {
			out = append(out, b)
		}
	}
	return out
}

func nonNil(c []ContentBlock) []ContentBlock {
	if c == nil {
		return []ContentBlock{}
	}
	return c
}

// MarshalJSON writes the message in pi's shape for its role.
func (m Message) MarshalJSON() ([]byte, error) {
	switch m.Role {
	case RoleUser:
		return json.Marshal(struct {
			Role      Role            `json:"role"`
			Content   []ContentBlock  `json:"content"`
			Details   json.RawMessage `json:"details,omitempty"`
			Timestamp int64           `json:"timestamp"`
		}{m.Role, nonNil(m.Content), m.Details, m.Timestamp})
	case RoleAssistant:
		return json.Marshal(struct {
			Role         Role           `json:"role"`
			Content      []ContentBlock `json:"content"`
			API          string         `json:"api"`
			Provider     string         `json:"provider"`
			Model        string         `json:"model"`
			Usage        Usage          `json:"usage"`
			StopReason   StopReason     `json:"stopReason"`
			ErrorMessage string         `json:"errorMessage,omitempty"`
			Timestamp    int64          `json:"timestamp"`
		}{m.Role, nonNil(m.Content), m.API, m.Provider, m.Model, m.Usage, m.StopReason, m.ErrorMessage, m.Timestamp})
	case RoleToolResult:
		return json.Marshal(struct {
			Role       Role            `json:"role"`
			ToolCallID string          `json:"toolCallId"`
			ToolName   string          `json:"toolName"`
			Content    []ContentBlock  `json:"content"`
			Details    json.RawMessage `json:"details,omitempty"`
			IsError    bool            `json:"isError"`
			Timestamp  int64           `json:"timestamp"`
		}{m.Role, m.ToolCallID, m.ToolName, nonNil(m.Content), m.Details, m.IsError, m.Timestamp})
	case RoleBashExecution:
		return json.Marshal(struct {
			Role               Role   `json:"role"`
			Command            string `json:"command"`
			Output             string `json:"output"`
			ExitCode           *int   `json:"exitCode,omitempty"`
			Cancelled          bool   `json:"cancelled"`
			Truncated          bool   `json:"truncated"`
			FullOutputPath     string `json:"fullOutputPath,omitempty"`
			ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`
			Timestamp          int64  `json:"timestamp"`
		}{m.Role, m.Command, m.Output, m.ExitCode, m.Cancelled, m.Truncated, m.FullOutputPath, m.ExcludeFromContext, m.Timestamp})
	case RoleCustom:
		return json.Marshal(struct {
			Role       Role            `json:"role"`
			CustomType string          `json:"customType"`
			Content    []ContentBlock  `json:"content"`
			Display    bool            `json:"display"`
			Details    json.RawMessage `json:"details,omitempty"`
			Timestamp  int64           `json:"timestamp"`
		}{m.Role, m.CustomType, nonNil(m.Content), m.Display, m.Details, m.Timestamp})
	case RoleBranchSummary:
		return json.Marshal(struct {
			Role      Role   `json:"role"`
			Summary   string `json:"summary"`
			FromID    string `json:"fromId"`
			Timestamp int64  `json:"timestamp"`
		}{m.Role, m.Summary, m.FromID, m.Timestamp})
	case RoleCompactionSummary:
		return json.Marshal(struct {
			Role         Role   `json:"role"`
			Summary      string `json:"summary"`
			TokensBefore int    `json:"tokensBefore"`
			Timestamp    int64  `json:"timestamp"`
		}{m.Role, m.Summary, m.TokensBefore, m.Timestamp})
	default:
		return nil, fmt.Errorf("llm: unknown message role %q", m.Role)
	}
}
