package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Decoding is the hot path of opening a session: every message of a branch
// is decoded once. encoding/json validates its whole input on every
// json.Unmarshal and walks a value once more to hand it to a custom
// UnmarshalJSON, so each nesting level with its own UnmarshalJSON re-reads
// the bytes below it twice. Message.UnmarshalJSON therefore decodes a message
// in one json.Unmarshal, into a messageJSON whose content is a plain
// []blockJSON (no UnmarshalJSON per block), or a string when contentStart
// sees that the content is one. Inputs the fast paths might decode
// differently (duplicate or escaped keys) or cannot decode (bad input) take
// the general path, which is the old three-level decode and gives the error.

// blockJSON is ContentBlock with pi's JSON names as struct tags. It has the
// same fields in the same order, so a blockJSON converts to a ContentBlock.
type blockJSON struct {
	Type              string          `json:"type"`
	Text              string          `json:"text"`
	Data              string          `json:"data"`
	MimeType          string          `json:"mimeType"`
	Thinking          string          `json:"thinking"`
	ThinkingSignature string          `json:"thinkingSignature"`
	Redacted          bool            `json:"redacted"`
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	Arguments         json.RawMessage `json:"arguments"`
	CutOff            bool            `json:"-"` // never read: ContentBlock.CutOff is not stored
}

// UnmarshalJSON reads any block pi writes. Fields of other block types are
// kept as they are in the input; unknown fields are ignored.
func (b *ContentBlock) UnmarshalJSON(data []byte) error {
	var aux blockJSON
	if err := json.Unmarshal(data, &aux); err != nil {
		return fmt.Errorf("llm: content block: %w", err)
	}
	*b = ContentBlock(aux)
	return nil
}

// DecodeContent reads content that is either a string or an array of blocks.
// A string becomes one text block; null or absent becomes nil.
func DecodeContent(raw json.RawMessage) ([]ContentBlock, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("llm: content string: %w", err)
		}
		return []ContentBlock{TextBlock(s)}, nil
	}
	var blocks []blockJSON
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("llm: content blocks: %w", err)
	}
	return toBlocks(blocks), nil
}

// toBlocks converts decoded blocks, keeping nil nil and empty empty.
func toBlocks(in []blockJSON) []ContentBlock {
	if in == nil {
		return nil
	}
	out := make([]ContentBlock, len(in))
	for i := range in {
		out[i] = ContentBlock(in[i])
	}
	return out
}

// messageJSON holds every field of every AgentMessage variant, by pi's
// names. C is the type the content is decoded into.
type messageJSON[C any] struct {
	Role               Role            `json:"role"`
	Content            C               `json:"content"`
	Timestamp          json.Number     `json:"timestamp"`
	API                string          `json:"api"`
	Provider           string          `json:"provider"`
	Model              string          `json:"model"`
	Usage              *Usage          `json:"usage"`
	StopReason         StopReason      `json:"stopReason"`
	ErrorMessage       string          `json:"errorMessage"`
	ToolCallID         string          `json:"toolCallId"`
	ToolName           string          `json:"toolName"`
	IsError            bool            `json:"isError"`
	Details            json.RawMessage `json:"details"`
	Command            string          `json:"command"`
	Output             string          `json:"output"`
	ExitCode           *int            `json:"exitCode"`
	Cancelled          bool            `json:"cancelled"`
	Truncated          bool            `json:"truncated"`
	FullOutputPath     string          `json:"fullOutputPath"`
	ExcludeFromContext bool            `json:"excludeFromContext"`
	CustomType         string          `json:"customType"`
	Display            bool            `json:"display"`
	Summary            string          `json:"summary"`
	FromID             string          `json:"fromId"`
	TokensBefore       int             `json:"tokensBefore"`
}

// message builds the Message of the decoded fields with the given content.
func (f *messageJSON[C]) message(content []ContentBlock) (Message, error) {
	if f.Role == "" {
		return Message{}, errNoRole()
	}
	role := f.Role
	if role == "hookMessage" {
		role = RoleCustom
	}
	ts, _ := f.Timestamp.Float64()
	m := Message{
		Role: role, Content: content, Timestamp: int64(ts),
		API: f.API, Provider: f.Provider, Model: f.Model, StopReason: f.StopReason, ErrorMessage: f.ErrorMessage,
		ToolCallID: f.ToolCallID, ToolName: f.ToolName, IsError: f.IsError, Details: f.Details,
		Command: f.Command, Output: f.Output, ExitCode: f.ExitCode, Cancelled: f.Cancelled, Truncated: f.Truncated,
		FullOutputPath: f.FullOutputPath, ExcludeFromContext: f.ExcludeFromContext,
		CustomType: f.CustomType, Display: f.Display,
		Summary: f.Summary, FromID: f.FromID, TokensBefore: f.TokensBefore,
	}
	if f.Usage != nil {
		m.Usage = *f.Usage
	}
	return m, nil
}

// UnmarshalJSON reads any AgentMessage pi writes. String content (allowed for
// user and custom messages) becomes one text block; null or absent content
// becomes nil. The v2 role "hookMessage" is read as "custom". The timestamp
// may be any JSON number (or a string holding one); unknown fields are
// ignored.
func (m *Message) UnmarshalJSON(data []byte) error {
	if first, ok := contentStart(data); ok {
		switch first {
		case '"':
			var f messageJSON[string]
			if json.Unmarshal(data, &f) == nil {
				return m.set(f.message([]ContentBlock{TextBlock(f.Content)}))
			}
		case '[', 'n', 0:
			var f messageJSON[[]blockJSON]
			if json.Unmarshal(data, &f) == nil {
				return m.set(f.message(toBlocks(f.Content)))
			}
		}
	}
	// The general path: any input, and the error for bad input.
	var f messageJSON[json.RawMessage]
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("llm: message: %w", err)
	}
	if f.Role == "" {
		return errNoRole()
	}
	content, err := DecodeContent(f.Content)
	if err != nil {
		return err
	}
	return m.set(f.message(content))
}

func errNoRole() error { return errors.New("llm: message without a role") }

// set stores v in m unless err is set.
func (m *Message) set(v Message, err error) error {
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// contentStart finds the top-level "content" key of the JSON object data and
// returns the first byte of its value (0 when there is no such key). ok is
// false when the fast paths of Message.UnmarshalJSON could decode data
// differently from the general path: when data has more than one content key
// (encoding/json would merge two arrays into one slice, where the general
// path keeps the last) or a top-level key with an escape (it may spell
// "content"). Keys match as in encoding/json: exactly or case-insensitively
// (bytes.EqualFold). data need not be valid JSON; json.Unmarshal reports
// that.
//
// encoding/json has no way to see duplicate keys or to peek at a value, so
// this skims the object by hand: it only tracks nesting and skips strings
// (with bytes.IndexByte), which is many times faster than a decode.
func contentStart(data []byte) (first byte, ok bool) {
	found := false
	depth := 0
	key := false // the next string is a key of the top-level object
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			depth++
			key = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			key = depth == 1
		case '"':
			end := stringEnd(data, i+1)
			if key {
				k := data[i+1 : end]
				if bytes.IndexByte(k, '\\') >= 0 {
					return 0, false
				}
				if bytes.EqualFold(k, []byte("content")) {
					if found {
						return 0, false
					}
					found = true
					first = valueStart(data[min(end+1, len(data)):])
				}
			}
			key = false
			i = end
		}
	}
	return first, true
}

// stringEnd returns the index of the quote closing the JSON string whose
// body starts at data[i], or len(data) when it is not closed.
func stringEnd(data []byte, i int) int {
	start := i
	for {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return len(data)
		}
		i += j
		escapes := 0
		for p := i - 1; p >= start && data[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return i
		}
		i++
	}
}

// valueStart returns the first byte of the value after the colon that
// starts data (after a key), or 0.
func valueStart(data []byte) byte {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 || data[0] != ':' {
		return 0
	}
	data = bytes.TrimLeft(data[1:], " \t\r\n")
	if len(data) == 0 {
		return 0
	}
	return data[0]
}
