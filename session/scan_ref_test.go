package session

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"github.com/pi-lsp/pi-lsp/llm"
)

// The line scanner as it was before it was made faster (round 9), kept as
// the reference the faster one must agree with (scan_equiv_test.go): the
// same fields, the same usage and cost, the same lines rejected.

func refSkipString(b []byte, i int) (end int, escaped bool, err error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false, errTruncated
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n > 0 {
			escaped = true
		}
		if n%2 == 0 {
			if !escaped && bytes.IndexByte(b[i+1:q], '\\') >= 0 {
				escaped = true
			}
			return q + 1, escaped, nil
		}
		j = q + 1
	}
}

func refSkipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errTruncated
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := refSkipString(b, i)
		return end, err
	case c == '{' || c == '[':
		return refSkipNested(b, i)
	default:
		return skipScalar(b, i)
	}
}

func refSkipNested(b []byte, i int) (int, error) {
	var small [32]byte
	stack := small[:0]
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, _, err := refSkipString(b, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != b[j] {
				return 0, errSyntax
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, errTruncated
}

func refWalkObject(b []byte, i int, fn func(m member)) (int, error) {
	it, err := newObjIter(b, i)
	if err != nil {
		return 0, err
	}
	m, ok, err := it.next()
	for ok {
		if m.end, err = refSkipValue(b, m.start); err != nil {
			return 0, err
		}
		if fn != nil {
			fn(m)
		}
		var more bool
		if more, err = it.after(m.end); err != nil {
			return 0, err
		}
		if !more {
			break
		}
		m, ok, err = it.key(it.i)
	}
	if err != nil {
		return 0, err
	}
	return it.i, nil
}

func refScanLine(line []byte) (li lineInfo, err error) {
	it, err := newObjIter(line, 0)
	if err != nil {
		return li, fmt.Errorf("not a JSON object: %w", err)
	}
	var entryTS []byte
	m, ok, err := it.next()
	for ok {
		switch {
		case m.keyIs("message") && m.start < len(line) && line[m.start] == '{':
			li.role = ""
			li.usage, li.stopReason, li.content, li.msgDisplay = nil, "", contentInfo{}, false
			li.msgTS, li.hasContent = nil, false
			m.end, err = li.refWalkMessage(line, m.start)
		default:
			m.end, err = refSkipValue(line, m.start)
		}
		if err != nil {
			return li, err
		}
		v := line[m.start:m.end]
		switch {
		case m.keyIs("type"):
			li.typ = knownString(v)
		case m.keyIs("id"):
			li.id, li.hasID = stringValue(v)
		case m.keyIs("parentId"):
			li.hasParent = true
			li.parent, _ = stringValue(v)
			li.parentNull = li.parent == ""
		case m.keyIs("customType"):
			li.customType, _ = stringValue(v)
		case m.keyIs("display"):
			li.display = string(v) == "true"
		case m.keyIs("summary"):
			li.summary = len(v) > 2 && v[0] == '"'
		case m.keyIs("timestamp"):
			entryTS = v
		}
		var more bool
		if more, err = it.after(m.end); err != nil {
			return li, err
		}
		if !more {
			break
		}
		m, ok, err = it.key(it.i)
	}
	if err != nil {
		return li, err
	}
	if rest := skipSpace(line, it.i); rest != len(line) {
		return li, fmt.Errorf("data after the object: %w", errSyntax)
	}
	if li.typ == TypeMessage && (li.role == "user" || li.role == "assistant") && li.hasContent {
		li.activity, li.hasActivity = activityMillis(li.msgTS, entryTS)
	}
	li.msgTS = nil
	return li, nil
}

func (li *lineInfo) refWalkMessage(b []byte, i int) (int, error) {
	it, err := newObjIter(b, i)
	if err != nil {
		return 0, err
	}
	m, ok, err := it.next()
	for ok {
		if m.keyIs("content") {
			li.hasContent = true
			m.end, li.content, err = refWalkContent(b, m.start)
		} else {
			m.end, err = refSkipValue(b, m.start)
		}
		if err != nil {
			return 0, err
		}
		v := b[m.start:m.end]
		switch {
		case m.keyIs("role"):
			li.role = knownString(v)
		case m.keyIs("usage"):
			li.usage = v
		case m.keyIs("stopReason"):
			li.stopReason = knownString(v)
		case m.keyIs("display"):
			li.msgDisplay = string(v) == "true"
		case m.keyIs("timestamp"):
			li.msgTS = v
		}
		var more bool
		if more, err = it.after(m.end); err != nil {
			return 0, err
		}
		if !more {
			break
		}
		m, ok, err = it.key(it.i)
	}
	if err != nil {
		return 0, err
	}
	return it.i, nil
}

func refWalkContent(b []byte, i int) (end int, ci contentInfo, err error) {
	end, ci, err = refWalkBlocks(b, i)
	if err != nil && i < len(b) && b[i] == '[' {
		end, err = refSkipNested(b, i)
	}
	return end, ci, err
}

func refWalkBlocks(b []byte, i int) (end int, ci contentInfo, err error) {
	if i >= len(b) || b[i] != '[' {
		end, err = refSkipValue(b, i)
		if err == nil && b[i] == '"' && end-i > 2 {
			ci.text = true
		}
		return end, ci, err
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, ci, nil
	}
	for {
		if i >= len(b) {
			return 0, ci, errTruncated
		}
		if b[i] == '{' {
			var typ []byte
			var text, thinking bool
			i, err = refWalkObject(b, i, func(m member) {
				v := b[m.start:m.end]
				switch {
				case m.keyIs("type"):
					typ = v
				case m.keyIs("text"):
					text = len(v) > 2 && v[0] == '"'
				case m.keyIs("thinking"):
					thinking = len(v) > 2 && v[0] == '"'
				}
			})
			if err != nil {
				return 0, ci, err
			}
			switch blockType(typ) {
			case llm.BlockText:
				ci.text = ci.text || text
			case llm.BlockThinking:
				ci.text = ci.text || thinking
			case llm.BlockToolCall:
				ci.calls++
			}
		} else if i, err = refSkipValue(b, i); err != nil {
			return 0, ci, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, ci, errTruncated
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, ci, nil
		default:
			return 0, ci, errSyntax
		}
	}
}

func refParseUsage(raw []byte, stop string, cost *llm.Cost) usageRec {
	u := usageRec{bad: stop == string(llm.StopAborted) || stop == string(llm.StopError)}
	if len(raw) == 0 || raw[0] != '{' {
		return u
	}
	num := func(v []byte) int32 {
		n, err := strconv.ParseInt(string(v), 10, 32)
		if err != nil {
			f, ferr := strconv.ParseFloat(string(v), 64)
			if ferr != nil || f < 0 || f > 1<<31-1 {
				return 0
			}
			return int32(f)
		}
		return int32(n)
	}
	_, _ = refWalkObject(raw, 0, func(m member) {
		v := raw[m.start:m.end]
		switch {
		case m.keyIs("input"):
			u.input = num(v)
		case m.keyIs("output"):
			u.output = num(v)
		case m.keyIs("cacheRead"):
			u.cacheRead = num(v)
		case m.keyIs("cacheWrite"):
			u.cacheWrite = num(v)
		case m.keyIs("totalTokens"):
			u.total = num(v)
		case m.keyIs("cost"):
			*cost = refParseCost(v)
		}
	})
	return u
}

func refParseCost(raw []byte) llm.Cost {
	var c llm.Cost
	if len(raw) == 0 || raw[0] != '{' {
		return c
	}
	num := func(v []byte) float64 {
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) {
			return 0
		}
		return f
	}
	_, _ = refWalkObject(raw, 0, func(m member) {
		v := raw[m.start:m.end]
		switch {
		case m.keyIs("input"):
			c.Input = num(v)
		case m.keyIs("output"):
			c.Output = num(v)
		case m.keyIs("cacheRead"):
			c.CacheRead = num(v)
		case m.keyIs("cacheWrite"):
			c.CacheWrite = num(v)
		case m.keyIs("total"):
			c.Total = num(v)
		}
	})
	return c
}
