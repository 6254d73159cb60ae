package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The wire shapes of a chat.completion.chunk, reduced to what the client
// reads. The SDK's ChatCompletionChunk is not used for decoding: its
// reflection-based decoder costs ~16-20 µs per chunk here (measured), the
// whole per-chunk budget, and it has no field for reasoning_content, which
// DeepSeek-style servers send. encoding/json into these structs costs ~3 µs.
type (
	wireChunk struct {
		Choices []wireChoice    `json:"choices"`
		Usage   *wireUsage      `json:"usage"`
		Error   json.RawMessage `json:"error"`
	}
	wireChoice struct {
		Delta        wireDelta  `json:"delta"`
		Message      *wireDelta `json:"message"` // a non-streaming answer
		FinishReason *string    `json:"finish_reason"`
		Usage        *wireUsage `json:"usage"` // Moonshot puts usage here
	}
	wireDelta struct {
		Content          *string        `json:"content"`
		ReasoningContent *string        `json:"reasoning_content"`
		Reasoning        *string        `json:"reasoning"`
		ReasoningText    *string        `json:"reasoning_text"`
		ToolCalls        []wireToolCall `json:"tool_calls"`
	}
	wireToolCall struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	wireUsage struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails *struct {
			CachedTokens     *int `json:"cached_tokens"`
			CacheWriteTokens int  `json:"cache_write_tokens"`
		} `json:"prompt_tokens_details"`
		PromptCacheHitTokens *int `json:"prompt_cache_hit_tokens"` // DeepSeek
	}
)

// errMalformed marks a chunk that is not JSON.
var errMalformed = errors.New("malformed chunk")

// providerError is an error object a provider sent inside the stream.
type providerError struct {
	Message string
	Code    int
}

func (e *providerError) Error() string { return "provider error in stream: " + e.Message }

// toolState is a tool call being streamed.
type toolState struct {
	block int // index in msg.Content
	id    string
	args  strings.Builder
}

// parser folds chunks into the assistant message and emits an event for
// each delta. Text and arguments grow in strings.Builders, whose String()
// does not copy, so a chunk costs O(delta), not O(message).
type parser struct {
	msg  *Message
	emit func(Event)
	cost Cost

	textBlock, thinkBlock int // -1 until the block exists
	text, think           strings.Builder
	tools                 []*toolState
	byIndex               map[int]*toolState

	finish     string // the last finish_reason seen, raw
	done       bool   // [DONE] seen
	sawContent bool   // any text, thinking or tool call arrived
	sawUsage   bool   // a usage object arrived
}

func newParser(msg *Message, emit func(Event), cost Cost) *parser {
	return &parser{msg: msg, emit: emit, cost: cost, textBlock: -1, thinkBlock: -1, byIndex: map[int]*toolState{}}
}

// handle folds one SSE data payload into the message.
func (p *parser) handle(data []byte) error {
	if isDone(data) {
		p.done = true
		return nil
	}
	var c wireChunk
	if err := json.Unmarshal(data, &c); err != nil {
		// A value of an unexpected type in a field we read is skipped
		// (the rest of the chunk is decoded); broken JSON is fatal.
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return fmt.Errorf("%w: %v: %s", errMalformed, err, truncate(string(data), 200))
		}
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return decodeProviderError(c.Error)
	}
	if c.Usage != nil {
		p.setUsage(c.Usage)
	}
	if len(c.Choices) == 0 {
		return nil
	}
	ch := &c.Choices[0]
	if c.Usage == nil && ch.Usage != nil {
		p.setUsage(ch.Usage)
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		p.finish = *ch.FinishReason
	}
	d := &ch.Delta
	if ch.Message != nil {
		d = ch.Message
	}
	if d.Content != nil && *d.Content != "" {
		p.addText(*d.Content)
	}
	switch {
	case d.ReasoningContent != nil && *d.ReasoningContent != "":
		p.addThinking("reasoning_content", *d.ReasoningContent)
	case d.Reasoning != nil && *d.Reasoning != "":
		p.addThinking("reasoning", *d.Reasoning)
	case d.ReasoningText != nil && *d.ReasoningText != "":
		p.addThinking("reasoning_text", *d.ReasoningText)
	}
	for i := range d.ToolCalls {
		p.addToolCall(&d.ToolCalls[i])
	}
	return nil
}

func isDone(data []byte) bool {
	return bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]"))
}

func (p *parser) addText(delta string) {
	p.sawContent = true
	if p.textBlock < 0 {
		p.textBlock = len(p.msg.Content)
		p.msg.Content = append(p.msg.Content, ContentBlock{Type: BlockText})
	}
	p.text.WriteString(delta)
	p.msg.Content[p.textBlock].Text = p.text.String()
	p.emit(Event{Type: EventTextDelta, ContentIndex: p.textBlock, Delta: delta, Partial: p.msg})
}

func (p *parser) addThinking(field, delta string) {
	p.sawContent = true
	if p.thinkBlock < 0 {
		p.thinkBlock = len(p.msg.Content)
		p.msg.Content = append(p.msg.Content, ContentBlock{Type: BlockThinking, ThinkingSignature: field})
	}
	p.think.WriteString(delta)
	p.msg.Content[p.thinkBlock].Thinking = p.think.String()
	p.emit(Event{Type: EventThinkingDelta, ContentIndex: p.thinkBlock, Delta: delta, Partial: p.msg})
}

// addToolCall folds one tool call delta. Calls are told apart by index;
// a delta without an index belongs to the call with its id, or, without an
// id either, to the last call. A new id on a known index starts a new call
// (some servers give every parallel call index 0).
func (p *parser) addToolCall(tc *wireToolCall) {
	var t *toolState
	if tc.Index != nil {
		t = p.byIndex[*tc.Index]
		if t != nil && tc.ID != "" && t.id != "" && tc.ID != t.id {
			t = nil
		}
	}
	if t == nil && tc.ID != "" {
		for _, s := range p.tools {
			if s.id == tc.ID {
				t = s
				break
			}
		}
	}
	if t == nil && tc.Index == nil && tc.ID == "" && len(p.tools) > 0 {
		t = p.tools[len(p.tools)-1]
	}
	created := false
	if t == nil {
		t = &toolState{block: len(p.msg.Content)}
		p.msg.Content = append(p.msg.Content, ContentBlock{Type: BlockToolCall})
		p.tools = append(p.tools, t)
		created = true
	}
	if tc.Index != nil {
		p.byIndex[*tc.Index] = t
	}
	b := &p.msg.Content[t.block]
	changed := created
	if b.ID == "" && tc.ID != "" {
		b.ID, t.id, changed = tc.ID, tc.ID, true
	}
	if b.Name == "" && tc.Function.Name != "" {
		b.Name, changed = tc.Function.Name, true
	}
	if tc.Function.Arguments != "" {
		t.args.WriteString(tc.Function.Arguments)
		changed = true
	}
	p.sawContent = true
	if changed {
		p.emit(Event{Type: EventToolCallDelta, ContentIndex: t.block, Delta: tc.Function.Arguments, Partial: p.msg})
	}
}

// setUsage converts provider usage as pi's parseChunkUsage does: cached
// prompt tokens are cacheRead and not input. TotalTokens is the provider's
// total when it gives one (it may count reasoning tokens that are outside
// completion_tokens), else the sum.
func (p *parser) setUsage(w *wireUsage) {
	p.sawUsage = true
	cached, cacheWrite := 0, 0
	if d := w.PromptTokensDetails; d != nil {
		if d.CachedTokens != nil {
			cached = *d.CachedTokens
		}
		cacheWrite = max(0, d.CacheWriteTokens)
	}
	if (w.PromptTokensDetails == nil || w.PromptTokensDetails.CachedTokens == nil) && w.PromptCacheHitTokens != nil {
		cached = *w.PromptCacheHitTokens
	}
	cacheRead := cached
	if cacheWrite > 0 {
		cacheRead = max(0, cached-cacheWrite)
	}
	u := Usage{
		Input:      max(0, w.PromptTokens-cacheRead-cacheWrite),
		Output:     max(0, w.CompletionTokens),
		CacheRead:  max(0, cacheRead),
		CacheWrite: cacheWrite,
	}
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	if w.TotalTokens > 0 {
		u.TotalTokens = w.TotalTokens
	}
	u.Cost = Cost{
		Input:      p.cost.Input / 1e6 * float64(u.Input),
		Output:     p.cost.Output / 1e6 * float64(u.Output),
		CacheRead:  p.cost.CacheRead / 1e6 * float64(u.CacheRead),
		CacheWrite: p.cost.CacheWrite / 1e6 * float64(u.CacheWrite),
	}
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
	p.msg.Usage = u
}

// finishToolCalls sets the final arguments of every tool call.
func (p *parser) finishToolCalls() {
	for _, t := range p.tools {
		raw := t.args.String()
		b := &p.msg.Content[t.block]
		b.Arguments = finalArguments(raw)
		b.CutOff = argumentsCutOff(raw)
	}
}

// stopReason maps the finish reason as pi's mapStopReason does; a stop
// with tool calls is toolUse. The message is "" unless the reason is an
// error.
func (p *parser) stopReason() (StopReason, string) {
	switch p.finish {
	case "", "stop", "end":
		if len(p.tools) > 0 {
			return StopToolUse, ""
		}
		return StopStop, ""
	case "length":
		return StopLength, ""
	case "tool_calls", "function_call":
		return StopToolUse, ""
	default:
		return StopError, "Provider finish_reason: " + p.finish
	}
}

// finalArguments turns streamed argument text into a JSON object: the text
// itself when it is one, the object inside when a model double-encoded it
// as a JSON string, the closed object when the stream was cut inside it,
// and {} otherwise.
func finalArguments(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage("{}")
	}
	if isObject(s) {
		return json.RawMessage(s)
	}
	var inner string
	if json.Unmarshal([]byte(s), &inner) == nil && isObject(inner) {
		return json.RawMessage(inner)
	}
	if closed := closeJSON(s); isObject(closed) {
		return json.RawMessage(closed)
	}
	return json.RawMessage("{}")
}

// argumentsCutOff reports whether streamed argument text is not a whole
// JSON object (nor one encoded as a JSON string): the stream ended inside it.
// Empty arguments are a call without arguments, not a cut one.
func argumentsCutOff(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || isObject(s) {
		return false
	}
	var inner string
	return json.Unmarshal([]byte(s), &inner) != nil || !isObject(inner)
}

func isObject(s string) bool {
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
}

// closeJSON closes the strings, objects and arrays a truncated JSON text
// left open. It is a best effort (the result is checked by the caller):
// pi keeps the partial arguments of a cut tool call the same way.
func closeJSON(s string) string {
	var stack []byte
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{':
			stack = append(stack, '}')
		case c == '[':
			stack = append(stack, ']')
		case (c == '}' || c == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	out := make([]byte, 0, len(s)+len(stack)+6)
	out = append(out, s...)
	if inString {
		if escaped {
			out = append(out, '\\')
		}
		out = append(out, '"')
	}
	out = bytes.TrimRight(out, " \t\r\n")
	// A dangling comma cannot be closed: drop it; a dangling key gets null.
	out = bytes.TrimSuffix(out, []byte(","))
	if bytes.HasSuffix(out, []byte(":")) {
		out = append(out, "null"...)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		out = append(out, stack[i])
	}
	return string(out)
}

func decodeProviderError(raw json.RawMessage) error {
	var obj struct {
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
	}
	e := &providerError{}
	var s string
	switch {
	case json.Unmarshal(raw, &s) == nil:
		e.Message = s
	case json.Unmarshal(raw, &obj) == nil && obj.Message != "":
		e.Message = obj.Message
		_ = json.Unmarshal(obj.Code, &e.Code)
	default:
		e.Message = truncate(string(raw), 500)
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// reset forgets what a failed attempt left before any content (finish
// reason, usage), so the retry starts clean.
func (p *parser) reset() {
	p.finish, p.done, p.sawUsage = "", false, false
	p.msg.Usage = Usage{}
}
