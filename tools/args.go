package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// decodeArgs unmarshals a call's arguments; an empty body is {}.
func decodeArgs(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}

func invalidArgs(tool string, err error) Result {
	return errorResult(fmt.Sprintf("%s: %v", tool, err))
}

// optInt is an optional integer argument. Models send numbers as 10, 10.0 or
// "10"; all are accepted.
type optInt struct {
	Set bool
	V   int
}

func (o *optInt) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		*o = optInt{}
		return nil
	}
	s = strings.Trim(s, `"`)
	if s == "" {
		*o = optInt{}
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("expected a number, got %s", b)
	}
	*o = optInt{Set: true, V: int(f)}
	return nil
}

// optBool is an optional boolean argument; "true"/"false" strings are
// accepted too.
type optBool bool

func (o *optBool) UnmarshalJSON(b []byte) error {
	switch strings.Trim(strings.TrimSpace(string(b)), `"`) {
	case "true", "1":
		*o = true
	case "false", "0", "null", "":
		*o = false
	default:
		return fmt.Errorf("expected a boolean, got %s", b)
	}
	return nil
}

// optFloat is an optional number argument (number or numeric string).
type optFloat struct {
	Set bool
	V   float64
}

func (o *optFloat) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	if s == "null" || s == "" {
		*o = optFloat{}
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("expected a number, got %s", b)
	}
	*o = optFloat{Set: true, V: f}
	return nil
}

// toolError is a message meant for the model, worded as full sentences the
// way pi words its tool errors.
type toolError string

func (e toolError) Error() string { return string(e) }

func failf(format string, a ...any) error { return toolError(fmt.Sprintf(format, a...)) }
