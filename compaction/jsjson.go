package compaction

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pi serializes tool call arguments with JavaScript: Object.entries(args)
// and JSON.stringify(value). encoding/json cannot reproduce that byte for
// byte (it reorders map keys, escapes <>& and formats numbers differently),
// so this file holds a small JSON reader that keeps member order and a
// writer that follows JSON.stringify and Number.prototype.toString.

type jsKind byte

const (
	jsNull jsKind = iota
	jsBool
	jsNumber
	jsString
	jsArray
	jsObject
)

// jsValue is a parsed JSON value; objects keep JavaScript's property order.
type jsValue struct {
	kind jsKind
	b    bool
	num  float64
	str  string
	arr  []jsValue
	keys []string
	vals []jsValue
}

// parseJS parses one JSON document as JSON.parse would.
func parseJS(raw []byte) (jsValue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := readJS(dec)
	if err != nil {
		return jsValue{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return jsValue{}, fmt.Errorf("compaction: trailing data after JSON value")
	}
	return v, nil
}

func readJS(dec *json.Decoder) (jsValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return jsValue{}, fmt.Errorf("compaction: arguments: %w", err)
	}
	switch t := tok.(type) {
	case nil:
		return jsValue{kind: jsNull}, nil
	case bool:
		return jsValue{kind: jsBool, b: t}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return jsValue{}, fmt.Errorf("compaction: arguments: %w", err)
		}
		return jsValue{kind: jsNumber, num: f}, nil
	case string:
		return jsValue{kind: jsString, str: t}, nil
	case json.Delim:
		if t == '[' {
			v := jsValue{kind: jsArray, arr: []jsValue{}}
			for dec.More() {
				el, err := readJS(dec)
				if err != nil {
					return jsValue{}, err
				}
				v.arr = append(v.arr, el)
			}
			_, err := dec.Token()
			return v, err
		}
		v := jsValue{kind: jsObject}
		index := map[string]int{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return jsValue{}, fmt.Errorf("compaction: arguments: %w", err)
			}
			k, _ := kt.(string)
			el, err := readJS(dec)
			if err != nil {
				return jsValue{}, err
			}
			if i, dup := index[k]; dup { // JSON.parse: last value, first position
				v.vals[i] = el
				continue
			}
			index[k] = len(v.keys)
			v.keys = append(v.keys, k)
			v.vals = append(v.vals, el)
		}
		if _, err := dec.Token(); err != nil {
			return jsValue{}, fmt.Errorf("compaction: arguments: %w", err)
		}
		v.orderKeys()
		return v, nil
	}
	return jsValue{}, fmt.Errorf("compaction: arguments: unexpected token %v", tok)
}

// orderKeys applies JavaScript's property order: array-index keys ascending,
// then the other keys in insertion order.
func (v *jsValue) orderKeys() {
	var ik, ok []int
	for i, k := range v.keys {
		if isArrayIndex(k) {
			ik = append(ik, i)
		} else {
			ok = append(ok, i)
		}
	}
	if len(ik) == 0 {
		return
	}
	idx := func(i int) uint64 { n, _ := strconv.ParseUint(v.keys[i], 10, 32); return n }
	for a := 1; a < len(ik); a++ { // insertion sort: few keys
		for b := a; b > 0 && idx(ik[b]) < idx(ik[b-1]); b-- {
			ik[b], ik[b-1] = ik[b-1], ik[b]
		}
	}
	order := append(ik, ok...)
	keys := make([]string, len(order))
	vals := make([]jsValue, len(order))
	for n, i := range order {
		keys[n], vals[n] = v.keys[i], v.vals[i]
	}
	v.keys, v.vals = keys, vals
}

func isArrayIndex(k string) bool {
	if k == "0" {
		return true
	}
	if k == "" || k[0] < '1' || k[0] > '9' || len(k) > 10 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < 1<<32-1
}

// stringify is JSON.stringify(v).
func (v *jsValue) stringify(sb *strings.Builder) {
	switch v.kind {
	case jsNull:
		sb.WriteString("null")
	case jsBool:
		sb.WriteString(strconv.FormatBool(v.b))
	case jsNumber:
		sb.WriteString(jsNumberString(v.num))
	case jsString:
		jsQuote(sb, v.str)
	case jsArray:
		sb.WriteByte('[')
		for i := range v.arr {
			if i > 0 {
				sb.WriteByte(',')
			}
			v.arr[i].stringify(sb)
		}
		sb.WriteByte(']')
	case jsObject:
		sb.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			jsQuote(sb, k)
			sb.WriteByte(':')
			v.vals[i].stringify(sb)
		}
		sb.WriteByte('}')
	}
}

// jsQuote writes a string literal as JSON.stringify does: only ", \ and
// control characters are escaped.
func jsQuote(sb *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	sb.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			if c < utf8.RuneSelf {
				sb.WriteByte(c)
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			sb.WriteRune(r) // invalid bytes become U+FFFD, as in a JS string from JSON
			i += n
			continue
		}
		switch c {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\b':
			sb.WriteString(`\b`)
		case '\f':
			sb.WriteString(`\f`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		default:
			sb.WriteString(`\u00`)
			sb.WriteByte(hex[c>>4])
			sb.WriteByte(hex[c&0xF])
		}
		i++
	}
	sb.WriteByte('"')
}

// jsNumberString is Number.prototype.toString for a finite double (JSON
// cannot hold NaN; an out-of-range literal parses to ±Infinity, which
// JSON.stringify writes as null).
func jsNumberString(f float64) string {
	if f == 0 {
		return "0"
	}
	if f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
		return "null"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits d1.d2...dk × 10^(n-1).
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n := x + 1
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	ev := strconv.Itoa(abs(n - 1))
	if k == 1 {
		return sign + digits + "e" + es + ev
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + es + ev
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// formatToolCall is pi's `${name}(${k}=${JSON.stringify(v)}, ...)`.
// Arguments that are not a JSON object give no entries.
func formatToolCall(name string, args []byte) string {
	var sb strings.Builder
	sb.WriteString(name)
	sb.WriteByte('(')
	if len(args) > 0 {
		if v, err := parseJS(args); err == nil && v.kind == jsObject {
			for i, k := range v.keys {
				if i > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(k)
				sb.WriteByte('=')
				v.vals[i].stringify(&sb)
			}
		}
	}
	sb.WriteByte(')')
	return sb.String()
}
