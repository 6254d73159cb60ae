package acp

import "strings"

// holder says how much of the end of streamed text could be the beginning
// of a secret; *tools.Redactor satisfies it.
type holder interface {
	HoldLen(s string) int
}

// chunkBuf is a session's buffer of streamed message and thought text,
// coalesced into chunk lines (coalescer), with each stream's unsafe tail
// held back: the end of a stream's text that could be the start of a
// secret (holder) waits here, per stream ("text", "thinking"), until that
// stream's next text or its message's end (release). Another stream's
// lines — a tool call, a plan, the other kind of chunk — never send it,
// so the egress, which masks each line whole, sees every secret whole.
// Worker-only.
type chunkBuf struct {
	hold holder // nil holds nothing
	kind string // the stream buffered in buf: "text" | "thinking"
	buf  strings.Builder
	held map[string]string // held tails, by stream
}

// len is the buffered text's length.
func (c *chunkBuf) len() int { return c.buf.Len() }

// add buffers a delta of stream kind; the caller takes what is buffered
// first when it is another stream's.
func (c *chunkBuf) add(kind, delta string) {
	c.kind = kind
	c.buf.WriteString(delta)
}

// take returns the buffered stream and the text that may go now: its held
// tail and the buffered text, less the new tail.
func (c *chunkBuf) take() (kind, text string) {
	if c.buf.Len() == 0 {
		return c.kind, ""
	}
	text = c.held[c.kind] + c.buf.String()
	c.buf.Reset()
	if c.hold == nil {
		return c.kind, text
	}
	n := c.hold.HoldLen(text)
	if n == 0 {
		delete(c.held, c.kind)
		return c.kind, text
	}
	if c.held == nil {
		c.held = map[string]string{}
	}
	c.held[c.kind] = text[len(text)-n:]
	return c.kind, text[:len(text)-n]
}

// release ends every stream (the message ended): it returns their held
// tails with what is buffered (one chunk per stream), thinking first, in
// the order a message streams them.
func (c *chunkBuf) release() (out [][2]string) {
	if c.buf.Len() > 0 {
		if c.held == nil {
			c.held = map[string]string{}
		}
		c.held[c.kind] += c.buf.String()
		c.buf.Reset()
	}
	for _, k := range []string{"thinking", "text"} {
		if t, ok := c.held[k]; ok {
			out = append(out, [2]string{k, t})
			delete(c.held, k)
		}
	}
	return out
}

// childText is a subagent's streamed text, sent whole as its tool call's
// content on each update: the part that may show now is the text less its
// unsafe tail, and all of it once the subagent's message ends.
func safeText(h holder, text string) string {
	if h == nil {
		return text
	}
	return text[:len(text)-h.HoldLen(text)]
}
