package tools

import (
	"strings"
	"unicode/utf8"
)

// MaxHold bounds the streamed text held back per stream (HoldLen): longer
// than every known key shape (an sk-proj-… key is about 170 bytes), small
// enough that a long run without spaces still streams.
const MaxHold = 512

// HoldLen returns how many bytes at the end of s (streamed text so far)
// could be the beginning of a secret that the next delta completes: the
// longest suffix that is a proper prefix of a secret value, or the trailing
// word (a run without white space, which could start a key shape such as
// sk-…, ghp_…, AKIA… or a NAME=value assignment) together with the words
// before it that a secret's rule needs ("Bearer ", "MY_TOKEN = ",
// `"api_key": "`). At most MaxHold, cut at a rune boundary.
func (r *Redactor) HoldLen(s string) int {
	if r == nil || s == "" {
		return 0
	}
	n := trailingRun(s)
	for _, v := range r.secrets {
		for l := min(len(v)-1, len(s)); l > n; l-- {
			if strings.HasSuffix(s, v[:l]) {
				n = l
				break
			}
		}
	}
	n = len(s) - r.uncut(s, len(s)-n)
	if n > MaxHold {
		n = MaxHold
		for n > 0 && !utf8.RuneStart(s[len(s)-n]) {
			n--
		}
	}
	return n
}

// uncut moves cut back to the start of any secret that spans it: a secret
// value holding a space, a value with spaces in quotes after a key name.
func (r *Redactor) uncut(s string, cut int) int {
	for moved := true; moved && cut > 0; {
		moved = false
		for _, v := range r.secrets {
			lo, hi := max(0, cut-len(v)+1), min(len(s), cut+len(v)-1)
			if lo < hi {
				if i := strings.Index(s[lo:hi], v); i >= 0 && lo+i < cut {
					cut, moved = lo+i, true
				}
			}
		}
		off := max(0, cut-MaxHold)
		w := s[off:]
		for _, p := range r.patterns {
			if !containsAny(w, p.need) && !(p.fold && containsAny(strings.ToLower(w), p.need)) {
				continue
			}
			for _, m := range p.re.FindAllStringIndex(w, -1) {
				if off+m[0] < cut && off+m[1] > cut {
					cut, moved = off+m[0], true
				}
			}
		}
	}
	return cut
}

// trailingRun is the length of the last word of s, with the words before it
// that the value of a secret's rule follows.
func trailingRun(s string) int {
	i := len(s)
	for i > 0 && !isSpace(s[i-1]) {
		i--
	}
	for range 3 {
		j := i
		for j > 0 && isSpace(s[j-1]) {
			j--
		}
		if j == i || j == 0 {
			break
		}
		k := j
		for k > 0 && !isSpace(s[k-1]) {
			k--
		}
		w := s[k:j]
		if w != "Bearer" && !strings.HasSuffix(w, "=") && !strings.HasSuffix(w, ":") &&
			!(i < len(s) && (s[i] == '=' || s[i] == ':')) {
			break
		}
		i = k
	}
	return len(s) - i
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// StreamTails holds back, per stream, the tail of streamed text that could
// be the beginning of a secret, so that a secret split across two deltas is
// masked whole: each delta is sent masked with its held-back tail in front
// of it, less the new tail. One connection owns one StreamTails; it is not
// safe for concurrent use. A nil *Redactor holds nothing.
type StreamTails struct {
	r    *Redactor
	held map[string]string
}

// NewStreamTails returns an empty StreamTails masking with r.
func (r *Redactor) NewStreamTails() *StreamTails {
	return &StreamTails{r: r, held: map[string]string{}}
}

// Append takes the next delta of stream key and returns the text to send
// for it now, masked (possibly empty).
func (t *StreamTails) Append(key, delta string) string {
	text := t.held[key] + delta
	n := t.r.HoldLen(text)
	if n == 0 {
		delete(t.held, key)
	} else {
		t.held[key] = text[len(text)-n:]
	}
	return t.r.Redact(text[:len(text)-n])
}

// Flush ends stream key: it returns its held-back text, masked, and
// forgets it ("" when nothing was held).
func (t *StreamTails) Flush(key string) string {
	s, ok := t.held[key]
	if !ok {
		return ""
	}
	delete(t.held, key)
	return t.r.Redact(s)
}

// Drop forgets the held-back text of key: what it held was sent whole
// another way (a snapshot, the value set again).
func (t *StreamTails) Drop(key string) { delete(t.held, key) }

// Keys returns the streams holding text back, in no order.
func (t *StreamTails) Keys() []string {
	keys := make([]string, 0, len(t.held))
	for k := range t.held {
		keys = append(keys, k)
	}
	return keys
}

// Holds reports whether stream key holds text back.
func (t *StreamTails) Holds(key string) bool {
	_, ok := t.held[key]
	return ok
}

// Len reports how many streams hold text back.
func (t *StreamTails) Len() int { return len(t.held) }
