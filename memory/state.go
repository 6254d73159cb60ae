package memory

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The custom entry types memory records in the session. pi ignores custom
// entries when it builds its context, so pi still sees the raw history.
const (
	CustomObservations = "pi-lsp/observations" // buffered chunks and activations
	CustomReflection   = "pi-lsp/reflection"
	CustomSettings     = "pi-lsp/memory" // the session's memory settings
)

// Chunk is what the observer distilled from a run of message entries, From
// to To (entry ids, inclusive).
type Chunk struct {
	Seq  int    `json:"seq"`
	From string `json:"from"`
	To   string `json:"to"`
	Output
	Tokens        int   `json:"tokens"`        // of Observations
	MessageTokens int   `json:"messageTokens"` // of the raw messages it covers
	Messages      int   `json:"messages"`
	Calls         int   `json:"calls"` // observer calls it took (a huge message takes several)
	Created       int64 `json:"created"`
}

// Record is the data of a pi-lsp/observations entry: Op "buffer" stores a
// chunk observed ahead of need; Op "activate" moves Seqs (a prefix of the
// buffered chunks, in order) into the observations and the cursor to the
// last one's To.
type Record struct {
	Op     string `json:"op"`
	Chunk  *Chunk `json:"chunk,omitempty"`
	Seqs   []int  `json:"seqs,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	Reason string `json:"reason,omitempty"` // threshold | sync | idle | provider | manual
}

// Reflection is the data of a pi-lsp/reflection entry: Text replaces the
// previous reflection and every active chunk up to Through.
type Reflection struct {
	Text         string `json:"text"`
	Through      int    `json:"through"`
	Tokens       int    `json:"tokens"`
	TokensBefore int    `json:"tokensBefore"`
	Level        int    `json:"level"` // the rung of CompressionLadder that produced it
	Created      int64  `json:"created"`
}

// State is the memory of one branch: folded from its records, root to leaf.
// The invariant: the active chunks cover, without gap or overlap, the
// message entries from the first one not covered by the reflection up to
// Cursor; the buffered chunks continue from Cursor; everything after the
// last buffered chunk is neither.
type State struct {
	Reflection *Reflection `json:"reflection,omitempty"`
	Active     []Chunk     `json:"active"`
	Buffered   []Chunk     `json:"buffered"`
	Cursor     string      `json:"cursor,omitempty"`
	// Task and Suggested come from the last activated chunk.
	Task      string `json:"currentTask,omitempty"`
	Suggested string `json:"suggested,omitempty"`
	NextSeq   int    `json:"nextSeq"`
	// Observed counts the message entries the observations cover.
	Observed int `json:"observed"`
}

// Clone returns a deep copy (chunks are values).
func (s *State) Clone() State {
	c := *s
	c.Active = append([]Chunk(nil), s.Active...)
	c.Buffered = append([]Chunk(nil), s.Buffered...)
	if s.Reflection != nil {
		r := *s.Reflection
		c.Reflection = &r
	}
	return c
}

// Apply folds one custom entry into s. Entries of other types are ignored;
// a record that does not follow from s is an error and changes nothing.
func (s *State) Apply(customType string, data json.RawMessage) error {
	switch customType {
	case CustomObservations:
		var r Record
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("memory: %s: %w", customType, err)
		}
		return s.apply(r)
	case CustomReflection:
		var r Reflection
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("memory: %s: %w", customType, err)
		}
		return s.reflect(r)
	}
	return nil
}

func (s *State) apply(r Record) error {
	switch r.Op {
	case "buffer":
		c := r.Chunk
		if c == nil || c.From == "" || c.To == "" {
			return fmt.Errorf("memory: buffer record without a chunk range")
		}
		if c.Seq < s.NextSeq {
			return fmt.Errorf("memory: buffered chunk %d is older than chunk %d", c.Seq, s.NextSeq-1)
		}
		s.Buffered = append(s.Buffered, *c)
		s.NextSeq = c.Seq + 1
	case "activate":
		if len(r.Seqs) == 0 || len(r.Seqs) > len(s.Buffered) {
			return fmt.Errorf("memory: activation of %d chunks, %d buffered", len(r.Seqs), len(s.Buffered))
		}
		for i, q := range r.Seqs {
			if s.Buffered[i].Seq != q {
				return fmt.Errorf("memory: activation of chunk %d out of order (next buffered is %d)", q, s.Buffered[i].Seq)
			}
		}
		last := s.Buffered[len(r.Seqs)-1]
		if r.Cursor != last.To {
			return fmt.Errorf("memory: activation cursor %s is not the end of chunk %d (%s)", r.Cursor, last.Seq, last.To)
		}
		for _, c := range s.Buffered[:len(r.Seqs)] {
			s.Observed += c.Messages
		}
		s.Active = append(s.Active, s.Buffered[:len(r.Seqs)]...)
		s.Buffered = append([]Chunk(nil), s.Buffered[len(r.Seqs):]...)
		s.Cursor = r.Cursor
		for i := len(s.Active) - 1; i >= 0; i-- {
			if s.Active[i].CurrentTask != "" || s.Active[i].Suggested != "" {
				s.Task, s.Suggested = s.Active[i].CurrentTask, s.Active[i].Suggested
				break
			}
		}
	default:
		return fmt.Errorf("memory: unknown observation op %q", r.Op)
	}
	return nil
}

func (s *State) reflect(r Reflection) error {
	if strings.TrimSpace(r.Text) == "" {
		return fmt.Errorf("memory: empty reflection")
	}
	if s.Reflection != nil && r.Through < s.Reflection.Through {
		return fmt.Errorf("memory: reflection through chunk %d after one through %d", r.Through, s.Reflection.Through)
	}
	if len(s.Active) == 0 || r.Through < s.Active[0].Seq-1 || r.Through > s.Active[len(s.Active)-1].Seq {
		if s.Reflection == nil || r.Through != s.Reflection.Through {
			return fmt.Errorf("memory: reflection through chunk %d does not match the active chunks", r.Through)
		}
	}
	keep := s.Active[:0:0]
	for _, c := range s.Active {
		if c.Seq > r.Through {
			keep = append(keep, c)
		}
	}
	s.Active = keep
	rr := r
	s.Reflection = &rr
	return nil
}

// Text is the observation log the model sees: the reflection, then the
// active chunks in order. A chunk that starts with the same Date header as
// the text before it does not repeat it. Since chunks are only ever
// appended, two consecutive renderings share their whole prefix until the
// next reflection.
func (s State) Text() string {
	var b strings.Builder
	lastDate := ""
	add := func(text string) {
		for _, l := range strings.Split(text, "\n") {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "Date:") {
				if t == lastDate {
					continue
				}
				lastDate = t
			}
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	if s.Reflection != nil {
		add(s.Reflection.Text)
	}
	for _, c := range s.Active {
		add(c.Observations)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Tokens is the size of the observation log.
func (s State) Tokens() int {
	n := 0
	if s.Reflection != nil {
		n += s.Reflection.Tokens
	}
	for _, c := range s.Active {
		n += c.Tokens
	}
	return n
}

// BufferedTokens is the size of the chunks observed ahead.
func (s *State) BufferedTokens() (obs, raw int) {
	for _, c := range s.Buffered {
		obs += c.Tokens
		raw += c.MessageTokens
	}
	return obs, raw
}

// lastBuffered is the entry the next buffered chunk starts after.
func (s *State) lastBuffered() string {
	if n := len(s.Buffered); n > 0 {
		return s.Buffered[n-1].To
	}
	return s.Cursor
}
