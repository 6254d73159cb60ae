package protocol

import (
	"encoding/json"
	"fmt"
)

// Op kinds of a display/state frame.
const (
	OpSet    = "set"    // set the value at Path
	OpAppend = "append" // append the string Value to the string at Path
	OpPush   = "push"   // append Value to the array at Path
	OpDelete = "delete" // remove the object key at Path
	OpMerge  = "merge"  // set each key of the object Value in the object at Path
)

// Wire codes of the op kinds: on the wire an op is the array
// [code, path, value] ([code, path] for delete). Frames are sent two or three
// times a second while text streams, so the op's own framing is kept to a
// few bytes (docs/protocol.md, "display/state").
const (
	codeSet    = "s"
	codeAppend = "a"
	codePush   = "p"
	codeDelete = "d"
	codeMerge  = "m"
)

// Op is one change to the DisplayState. Path elements are object keys
// (string) or array indices (int). An Op handed out in a Frame is never
// modified; its Value is a copy the receiver may keep.
type Op struct {
	Op    string
	Path  []any
	Value any
}

// MarshalJSON writes the op as [code, path, value], or [code, path] for a
// delete.
func (o Op) MarshalJSON() ([]byte, error) {
	var code string
	switch o.Op {
	case OpSet:
		code = codeSet
	case OpAppend:
		code = codeAppend
	case OpPush:
		code = codePush
	case OpMerge:
		code = codeMerge
	case OpDelete:
		return json.Marshal([]any{codeDelete, o.Path})
	default:
		return nil, fmt.Errorf("protocol: unknown op %q", o.Op)
	}
	return json.Marshal([]any{code, o.Path, o.Value})
}

// UnmarshalJSON reads an op in its wire form. Path indices decode as
// float64, which Patch accepts.
func (o *Op) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("protocol: an op is an array [code, path, value]: %w", err)
	}
	if len(raw) < 2 {
		return fmt.Errorf("protocol: an op needs a code and a path, got %d elements", len(raw))
	}
	var code string
	if err := json.Unmarshal(raw[0], &code); err != nil {
		return fmt.Errorf("protocol: op code: %w", err)
	}
	want := 3
	switch code {
	case codeSet:
		o.Op = OpSet
	case codeAppend:
		o.Op = OpAppend
	case codePush:
		o.Op = OpPush
	case codeMerge:
		o.Op = OpMerge
	case codeDelete:
		o.Op, want = OpDelete, 2
	default:
		return fmt.Errorf("protocol: unknown op code %q", code)
	}
	if len(raw) != want {
		return fmt.Errorf("protocol: op %q needs %d elements, got %d", code, want, len(raw))
	}
	o.Path, o.Value = nil, nil
	if err := json.Unmarshal(raw[1], &o.Path); err != nil {
		return fmt.Errorf("protocol: op path: %w", err)
	}
	if want == 3 {
		if err := json.Unmarshal(raw[2], &o.Value); err != nil {
			return fmt.Errorf("protocol: op value: %w", err)
		}
	}
	return nil
}

// Fields is the value of a merge op as the scheduler makes it: object keys
// with their values, written in order.
type Fields []Field

// Field is one key of a merge op's value.
type Field struct {
	Key   string
	Value any
}

// MarshalJSON writes the fields as a JSON object, in order.
func (fs Fields) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, fmt.Errorf("protocol: merge value %q: %w", f.Key, err)
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}
