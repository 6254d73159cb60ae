package skills

import (
	"strconv"
	"strings"
)

// ParseArgs splits a template's argument string the way pi does: on
// spaces and tabs (and, here, newlines), with '…' and "…" grouping words.
// Quotes nest no further and there are no backslash escapes; an unclosed
// quote runs to the end. Unlike pi, an empty quoted argument ("") is kept,
// as a shell keeps it, so positions stay where the user put them.
func ParseArgs(s string) []string {
	var (
		args  []string
		cur   strings.Builder
		quote rune
		have  bool
	)
	for _, c := range s {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '"' || c == '\'':
			quote, have = c, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if have {
				args = append(args, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(c)
			have = true
		}
	}
	if have {
		args = append(args, cur.String())
	}
	return args
}

// SubstituteArgs fills a template body with args:
//
//	$1 … $n          the nth argument ("" when missing)
//	$@, $ARGUMENTS   all arguments joined by spaces
//	${@:N}           arguments from the Nth on (1-based; 0 counts as 1)
//	${@:N:L}         L arguments from the Nth
//	${N}             the Nth argument
//	${N:-default}    the Nth argument, or default when it is missing or empty
//
// It is one pass over the body: text that comes from an argument is never
// substituted again (pi substitutes in several passes, so an argument
// containing "$@" got expanded; here it stays literal). Anything else that
// starts with $ is kept as written.
func SubstituteArgs(body string, args []string) string {
	var b strings.Builder
	b.Grow(len(body))
	all := strings.Join(args, " ")
	arg := func(n int) string {
		if n >= 1 && n <= len(args) {
			return args[n-1]
		}
		return ""
	}
	for i := 0; i < len(body); {
		c := body[i]
		if c != '$' || i+1 >= len(body) {
			b.WriteByte(c)
			i++
			continue
		}
		rest := body[i+1:]
		switch {
		case isDigit(rest[0]):
			j := 0
			for j < len(rest) && isDigit(rest[j]) {
				j++
			}
			b.WriteString(arg(atoi(rest[:j])))
			i += 1 + j
		case rest[0] == '@':
			b.WriteString(all)
			i += 2
		case strings.HasPrefix(rest, "ARGUMENTS"):
			b.WriteString(all)
			i += 1 + len("ARGUMENTS")
		case rest[0] == '{':
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				b.WriteByte(c)
				i++
				continue
			}
			v, ok := braced(rest[1:end], args, all, arg)
			if !ok {
				b.WriteByte(c)
				i++
				continue
			}
			b.WriteString(v)
			i += 1 + end + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// braced expands the inside of ${…}; ok is false when it is not a form we
// know, and the text is then kept as written.
func braced(in string, args []string, all string, arg func(int) string) (string, bool) {
	switch {
	case in == "@" || in == "ARGUMENTS":
		return all, true
	case strings.HasPrefix(in, "@:"):
		startS, lenS, hasLen := strings.Cut(in[2:], ":")
		if !allDigits(startS) || (hasLen && !allDigits(lenS)) {
			return "", false
		}
		start := atoi(startS) - 1
		if start < 0 {
			start = 0
		}
		if start > len(args) {
			start = len(args)
		}
		end := len(args)
		if hasLen {
			if n := atoi(lenS); n < end-start {
				end = start + n
			}
		}
		return strings.Join(args[start:end], " "), true
	case allDigits(in):
		return arg(atoi(in)), true
	}
	num, def, found := strings.Cut(in, ":-")
	if found && allDigits(num) {
		if v := arg(atoi(num)); v != "" {
			return v, true
		}
		return def, true
	}
	return "", false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// atoi parses a run of digits; a number too large for an int is treated as
// out of range (max int), never wrapped.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return int(^uint(0) >> 1)
	}
	return n
}
