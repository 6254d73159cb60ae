package compaction

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/tiktoken-go/tokenizer"
)

// ImageChars is what one image counts for, in characters (pi: 4800 chars,
// that is 1200 tokens).
const ImageChars = 4800

// Encoding names reported by Estimator.Encoding.
const (
	EncodingO200k  = "o200k_base"
	EncodingCl100k = "cl100k_base"
	EncodingChars  = "chars/4"
)

// maxCacheEntries bounds the per-Estimator memo of BPE counts.
const maxCacheEntries = 1 << 17

// Estimator estimates the tokens of messages for one model family. It is safe
// for concurrent use. The zero value and a nil *Estimator estimate chars/4.
type Estimator struct {
	encoding string
	once     sync.Once
	codec    tokenizer.Codec // nil until first use, or for chars/4

	mu    sync.Mutex
	cache map[cacheKey]int // raw counts (before scale)
	scale float64          // provider tokens per estimated token (0: not calibrated, 1)
	// calibrated: scale comes from a provider's usage, not from Assume.
	calibrated bool
}

type cacheKey struct {
	id   string
	ts   int64
	size int
}

// EncodingFor names the encoding NewEstimator uses for a model family: the
// model id, optionally prefixed by a provider ("openrouter/openai/gpt-4o").
func EncodingFor(modelFamily string) string {
	f := strings.ToLower(strings.TrimSpace(modelFamily))
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		f = f[i+1:]
	}
	if f == "" {
		return EncodingChars
	}
	for _, p := range []string{"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "gpt-oss", "o1", "o3", "o4", "codex"} {
		if strings.HasPrefix(f, p) {
			return EncodingO200k
		}
	}
	for _, p := range []string{"gpt-4", "gpt-3.5", "gpt-35", "text-embedding"} {
		if strings.HasPrefix(f, p) {
			return EncodingCl100k
		}
	}
	// Families whose own tokenizers are not available offline but are
	// byte-level BPEs of a granularity close to cl100k (Llama 3 and Mistral's
	// Tekken even extend tiktoken vocabularies): cl100k is their estimate, and
	// the provider's usage corrects it after every answer.
	for _, p := range []string{
		"claude", "llama", "codellama", "qwen", "qwq", "mistral", "mixtral", "codestral", "devstral",
		"magistral", "ministral", "deepseek", "gemini", "gemma", "phi", "glm", "kimi", "grok", "granite",
		"command", "yi-", "internlm", "minimax", "hermes", "nemotron", "olmo", "smollm", "starcoder",
	} {
		if strings.HasPrefix(f, p) {
			return EncodingCl100k
		}
	}
	return EncodingChars
}

// NewEstimator returns an estimator for a model family (see EncodingFor).
// Known families count with an offline BPE tokenizer; others use pi's
// chars/4. The tokenizer's vocabulary is loaded on first use.
func NewEstimator(modelFamily string) *Estimator {
	return &Estimator{encoding: EncodingFor(modelFamily)}
}

// Encoding names the counting method: o200k_base, cl100k_base or chars/4.
func (e *Estimator) Encoding() string {
	if e == nil || e.encoding == "" {
		return EncodingChars
	}
	return e.encoding
}

func (e *Estimator) bpe() tokenizer.Codec {
	if e == nil || e.encoding == "" || e.encoding == EncodingChars {
		return nil
	}
	e.once.Do(func() {
		c, err := tokenizer.Get(tokenizer.Encoding(e.encoding))
		if err == nil {
			e.codec = c
		}
	})
	return e.codec
}

// Text returns the estimated tokens of one string.
func (e *Estimator) Text(s string) int {
	if s == "" {
		return 0
	}
	if c := e.bpe(); c != nil {
		if n, ok := countBPE(c, s); ok {
			return e.scaled(n)
		}
	}
	return e.scaled(ceilDiv(utf16Len(s), 4))
}

// counter sums the pieces of one message either as characters (pi:
// ceil(chars/4) over the whole message) or as BPE tokens.
type counter struct {
	codec  tokenizer.Codec
	chars  int
	tokens int
}

func (c *counter) add(s string) {
	if s == "" {
		return
	}
	if c.codec != nil {
		if n, ok := countBPE(c.codec, s); ok {
			c.tokens += n
			return
		}
	}
	c.chars += utf16Len(s)
}

func (c *counter) image() { c.chars += ImageChars }

func (c *counter) total() int { return c.tokens + ceilDiv(c.chars, 4) }

// Message estimates the tokens one message adds to the context: text,
// thinking, tool call names and arguments, tool results, images (4800 chars
// each), bash executions and summaries. A bash execution excluded from context
// counts 0.
func (e *Estimator) Message(m *llm.Message) int {
	return e.scaled(e.raw(m))
}

// raw is Message before calibration.
func (e *Estimator) raw(m *llm.Message) int {
	if m == nil {
		return 0
	}
	c := counter{codec: e.bpe()}
	switch m.Role {
	case llm.RoleUser, llm.RoleCustom, llm.RoleToolResult:
		for i := range m.Content {
			b := &m.Content[i]
			switch b.Type {
			case llm.BlockText:
				c.add(b.Text)
			case llm.BlockImage:
				c.image()
			}
		}
	case llm.RoleAssistant:
		for i := range m.Content {
			b := &m.Content[i]
			switch b.Type {
			case llm.BlockText:
				c.add(b.Text)
			case llm.BlockThinking:
				c.add(b.Thinking)
			case llm.BlockToolCall:
				c.add(b.Name)
				c.add(compactArgs(b.Arguments))
			}
		}
	case llm.RoleBashExecution:
		if m.ExcludeFromContext {
			return 0
		}
		c.add(m.Command)
		c.add(m.Output)
	case llm.RoleBranchSummary, llm.RoleCompactionSummary:
		c.add(m.Summary)
	}
	return c.total()
}

// EntryMessage is Message for the message of entry id, memoised like the
// messages of Items (the context builders of both memory modes share one
// count per entry).
func (e *Estimator) EntryMessage(id string, m *llm.Message) int {
	return e.item(&Item{EntryID: id, Message: m})
}

// item estimates an Item's message, memoised (BPE and chars/4 alike: a
// long branch is counted on every request) by entry id,
// timestamp and content size (entries are immutable once written; a trimmed
// copy has another size).
func (e *Estimator) item(it *Item) int {
	m := it.Message
	if m == nil {
		return 0
	}
	if it.EntryID == "" || e == nil {
		return e.Message(m)
	}
	k := cacheKey{id: it.EntryID, ts: m.Timestamp, size: contentSize(m)}
	e.mu.Lock()
	n, ok := e.cache[k]
	e.mu.Unlock()
	if ok {
		return e.scaled(n)
	}
	n = e.raw(m)
	e.mu.Lock()
	if e.cache == nil || len(e.cache) >= maxCacheEntries {
		e.cache = make(map[cacheKey]int)
	}
	e.cache[k] = n
	e.mu.Unlock()
	return e.scaled(n)
}

func contentSize(m *llm.Message) int {
	n := len(m.Command) + len(m.Output) + len(m.Summary) + len(m.Role)
	for i := range m.Content {
		b := &m.Content[i]
		n += len(b.Type) + len(b.Text) + len(b.Thinking) + len(b.Name) + len(b.Arguments) + len(b.Data)
	}
	return n
}

// compactArgs is the length-relevant form of tool call arguments: pi counts
// JSON.stringify(arguments), i.e. compact JSON.
func compactArgs(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// utf16Len is JavaScript's String.length: UTF-16 code units.
func utf16Len(s string) int {
	n := utf8.RuneCountInString(s)
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xF0 { // leading byte of a 4-byte sequence: a surrogate pair
			n++
		}
	}
	return n
}

// maxSpaceRun bounds the whitespace runs handed to the tokenizer at once.
// The tiktoken split pattern (\s*[\r\n]+, \s+(?!\S)) backtracks
// quadratically on long runs of mixed spaces and newlines in regexp2: 100 KB
// of " \n" took 13 s. Longer runs are counted in pieces of this size, which
// changes the count by at most a token per piece.
const maxSpaceRun = 64

// countBPE counts the tokens of s, splitting long whitespace runs.
func countBPE(c tokenizer.Codec, s string) (int, bool) {
	total, from := 0, 0
	count := func(part string) bool {
		if part == "" {
			return true
		}
		n, err := c.Count(part)
		total += n
		return err == nil
	}
	for i := 0; i < len(s); {
		n := spaceAt(s, i)
		if n == 0 {
			i++ // continuation bytes are never spaces
			continue
		}
		j, cuts := i, []int{i}
		for n > 0 {
			j += n
			if j-cuts[len(cuts)-1] >= maxSpaceRun {
				cuts = append(cuts, j)
			}
			n = spaceAt(s, j)
		}
		if len(cuts) > 1 {
			if !count(s[from:i]) {
				return 0, false
			}
			cuts = append(cuts, j)
			for k := 1; k < len(cuts); k++ {
				if !count(s[cuts[k-1]:cuts[k]]) {
					return 0, false
				}
			}
			from = j
		}
		i = j
	}
	if !count(s[from:]) {
		return 0, false
	}
	return total, true
}

// spaceAt returns the byte length of the whitespace rune at s[i] (as the
// split pattern's \s matches it: ASCII whitespace, U+0085 and the Unicode
// separators), or 0.
func spaceAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	if b := s[i]; b < utf8.RuneSelf {
		if b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\v' || b == '\f' {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if unicode.IsSpace(r) || unicode.Is(unicode.Z, r) {
		return n
	}
	return 0
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
