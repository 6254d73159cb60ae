package session

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Tree previews are read from the raw line: decoding every message of a
// large session with encoding/json would take seconds; the tree needs a
// role, a timestamp and the first hundred characters of text.

// previewBytes is how much text is unquoted for a preview before shortening.
const previewBytes = 8 * previewLen

// nodeFields reads what a tree node shows from record i's raw line.
func nodeFields(k kind, line []byte) (ts, role, preview string, err error) {
	ms, _, err := members(line)
	if err != nil {
		return "", "", "", err
	}
	get := func(ms []member, b []byte, key string) []byte {
		for j := len(ms) - 1; j >= 0; j-- {
			if ms[j].keyIs(key) {
				return b[ms[j].start:ms[j].end]
			}
		}
		return nil
	}
	str := func(ms []member, b []byte, key string) string { return rawString(get(ms, b, key)) }
	ts = str(ms, line, "timestamp")
	switch k {
	case kMessage:
		m := get(ms, line, "message")
		mms, _, merr := members(m)
		if merr != nil {
			return ts, "", "", merr
		}
		role = str(mms, m, "role")
		switch role {
		case "bashExecution":
			preview = "$ " + str(mms, m, "command")
		case "branchSummary", "compactionSummary":
			preview = textPrefix(get(mms, m, "summary"))
		default:
			preview, err = contentPreview(get(mms, m, "content"))
		}
	case kCustomMessage:
		preview, err = contentPreview(get(ms, line, "content"))
	case kCompaction, kBranchSummary:
		preview = textPrefix(get(ms, line, "summary"))
	case kModelChange:
		preview = str(ms, line, "provider") + "/" + str(ms, line, "modelId")
	case kThinking:
		preview = str(ms, line, "thinkingLevel")
	case kCustom:
		preview = str(ms, line, "customType")
	case kLabel:
		preview = str(ms, line, "targetId")
		if l := str(ms, line, "label"); l != "" {
			preview += ": " + l
		}
	case kSessionInfo:
		preview = textPrefix(get(ms, line, "name"))
	}
	return ts, role, shorten(preview), err
}

// contentPreview gives the start of a content value (a string or blocks):
// text blocks joined by spaces, or the names of the tool calls.
func contentPreview(v []byte) (string, error) {
	if len(v) > 0 && v[0] == '"' {
		return textPrefix(v), nil
	}
	if len(v) == 0 || v[0] != '[' {
		return "", nil
	}
	var texts, calls []string
	n := 0
	err := walkArray(v, func(el []byte) {
		bms, _, err := members(el)
		if err != nil || n >= previewBytes {
			return
		}
		var typ, name []byte
		var text []byte
		for _, bm := range bms {
			switch {
			case bm.keyIs("type"):
				typ = el[bm.start:bm.end]
			case bm.keyIs("text"):
				text = el[bm.start:bm.end]
			case bm.keyIs("name"):
				name = el[bm.start:bm.end]
			}
		}
		switch rawString(typ) {
		case "text":
			t := textPrefix(text)
			texts = append(texts, t)
			n += len(t)
		case "toolCall":
			calls = append(calls, rawString(name))
		}
	})
	if len(texts) > 0 {
		return strings.Join(texts, " "), err
	}
	if len(calls) > 0 {
		return "→ " + strings.Join(calls, ", "), err
	}
	return "", err
}

// walkArray calls fn with each element of the JSON array v.
func walkArray(v []byte, fn func(el []byte)) error {
	i := skipSpace(v, 1)
	if i < len(v) && v[i] == ']' {
		return nil
	}
	for {
		end, err := skipValue(v, i)
		if err != nil {
			return err
		}
		fn(v[i:end])
		i = skipSpace(v, end)
		if i >= len(v) {
			return errTruncated
		}
		switch v[i] {
		case ']':
			return nil
		case ',':
			i = skipSpace(v, i+1)
		default:
			return errSyntax
		}
	}
}

// textPrefix unquotes the start of a JSON string value (about previewBytes
// bytes of it), without decoding the rest of a possibly huge string.
func textPrefix(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	body := v[1 : len(v)-1]
	var b strings.Builder
	for i := 0; i < len(body) && b.Len() < previewBytes; {
		c := body[i]
		if c != '\\' {
			r, size := utf8.DecodeRune(body[i:])
			b.WriteRune(r)
			i += size
			continue
		}
		if i+1 >= len(body) {
			break
		}
		switch e := body[i+1]; e {
		case 'n', 't', 'r', 'b', 'f':
			b.WriteByte(' ')
			i += 2
		case 'u':
			if i+6 > len(body) {
				return b.String()
			}
			r1, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16)
			if err != nil {
				return b.String()
			}
			i += 6
			r := rune(r1)
			if utf16.IsSurrogate(r) && i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
				if r2, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16); err == nil {
					if pair := utf16.DecodeRune(r, rune(r2)); pair != utf8.RuneError {
						r = pair
						i += 6
					}
				}
			}
			if r < 0x20 {
				r = ' '
			}
			b.WriteRune(r)
		default: // \" \\ \/
			b.WriteByte(e)
			i += 2
		}
	}
	return b.String()
}
