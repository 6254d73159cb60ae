package display

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
		return nil, fmt.Errorf("display: unknown op %q", o.Op)
	}
	return json.Marshal([]any{code, o.Path, o.Value})
}

// UnmarshalJSON reads an op in its wire form. Path indices decode as
// float64, which Patch accepts.
func (o *Op) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("display: an op is an array [code, path, value]: %w", err)
	}
	if len(raw) < 2 {
		return fmt.Errorf("display: an op needs a code and a path, got %d elements", len(raw))
	}
	var code string
	if err := json.Unmarshal(raw[0], &code); err != nil {
		return fmt.Errorf("display: op code: %w", err)
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
		return fmt.Errorf("display: unknown op code %q", code)
	}
	if len(raw) != want {
		return fmt.Errorf("display: op %q needs %d elements, got %d", code, want, len(raw))
	}
	o.Path, o.Value = nil, nil
	if err := json.Unmarshal(raw[1], &o.Path); err != nil {
		return fmt.Errorf("display: op path: %w", err)
	}
	if want == 3 {
		if err := json.Unmarshal(raw[2], &o.Value); err != nil {
			return fmt.Errorf("display: op value: %w", err)
		}
	}
	return nil
}

// samePath reports whether a and b name the same location.
func samePath(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) > 0 && &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if !sameElem(a[i], b[i]) {
			return false
		}
	}
	return true
}

// hasPrefix reports whether path p starts with prefix.
func hasPrefix(p, prefix []any) bool {
	if len(prefix) > len(p) {
		return false
	}
	return samePath(p[:len(prefix)], prefix)
}

func sameElem(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int:
		y, ok := b.(int)
		return ok && x == y
	}
	return false
}

// Patch applies ops, in order, to doc: a value decoded from JSON into `any`
// (objects as map[string]any, arrays as []any, numbers as float64), such as a
// State marshalled and decoded. Path indices may be int or float64. It returns
// the new root. Patch is what an editor does with a display/state frame; Go
// clients and tests use it to check that frames rebuild the snapshot.
func Patch(doc any, ops []Op) (any, error) {
	for i, op := range ops {
		var err error
		doc, err = patchOne(doc, op)
		if err != nil {
			return doc, fmt.Errorf("display: op %d (%s %v): %w", i, op.Op, op.Path, err)
		}
	}
	return doc, nil
}

func patchOne(doc any, op Op) (any, error) {
	if op.Op == OpMerge {
		return doc, patchMerge(doc, op)
	}
	if len(op.Path) == 0 {
		if op.Op == OpSet {
			return op.Value, nil
		}
		return doc, fmt.Errorf("empty path")
	}
	parent, err := walk(doc, op.Path[:len(op.Path)-1])
	if err != nil {
		return doc, err
	}
	last := op.Path[len(op.Path)-1]
	switch p := parent.(type) {
	case map[string]any:
		key, ok := last.(string)
		if !ok {
			return doc, fmt.Errorf("object key %v is not a string", last)
		}
		switch op.Op {
		case OpSet:
			p[key] = op.Value
		case OpDelete:
			delete(p, key)
		case OpAppend:
			s, ok1 := p[key].(string)
			v, ok2 := op.Value.(string)
			if !ok1 || !ok2 {
				return doc, fmt.Errorf("append needs a string at the path and a string value")
			}
			p[key] = s + v
		case OpPush:
			a, ok := p[key].([]any)
			if !ok {
				return doc, fmt.Errorf("push needs an array at the path")
			}
			p[key] = append(a, op.Value)
		default:
			return doc, fmt.Errorf("unknown op")
		}
	case []any:
		idx, ok := index(last)
		if !ok || idx < 0 || idx >= len(p) {
			return doc, fmt.Errorf("array index %v out of range (len %d)", last, len(p))
		}
		switch op.Op {
		case OpSet:
			p[idx] = op.Value
		case OpAppend:
			s, ok1 := p[idx].(string)
			v, ok2 := op.Value.(string)
			if !ok1 || !ok2 {
				return doc, fmt.Errorf("append needs a string at the path and a string value")
			}
			p[idx] = s + v
		case OpPush:
			a, ok := p[idx].([]any)
			if !ok {
				return doc, fmt.Errorf("push needs an array at the path")
			}
			p[idx] = append(a, op.Value)
		default:
			return doc, fmt.Errorf("op %q not valid on an array element", op.Op)
		}
	default:
		return doc, fmt.Errorf("parent of the path is not an object or array")
	}
	return doc, nil
}

// patchMerge sets each key of the op's object value in the object at its
// path (the root when the path is empty).
func patchMerge(doc any, op Op) error {
	target, err := walk(doc, op.Path)
	if err != nil {
		return err
	}
	obj, ok := target.(map[string]any)
	if !ok {
		return fmt.Errorf("merge needs an object at the path")
	}
	switch v := op.Value.(type) {
	case map[string]any:
		for k, x := range v {
			obj[k] = x
		}
	case Fields:
		for _, f := range v {
			obj[f.Key] = f.Value
		}
	default:
		return fmt.Errorf("merge needs an object value")
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
			return nil, fmt.Errorf("display: merge value %q: %w", f.Key, err)
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

func walk(doc any, path []any) (any, error) {
	cur := doc
	for _, el := range path {
		switch c := cur.(type) {
		case map[string]any:
			k, ok := el.(string)
			if !ok {
				return nil, fmt.Errorf("object key %v is not a string", el)
			}
			next, ok := c[k]
			if !ok {
				return nil, fmt.Errorf("no key %q", k)
			}
			cur = next
		case []any:
			i, ok := index(el)
			if !ok || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("array index %v out of range (len %d)", el, len(c))
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("cannot descend into %T at %v", cur, el)
		}
	}
	return cur, nil
}

func index(el any) (int, bool) {
	switch v := el.(type) {
	case int:
		return v, true
	case float64:
		if v != float64(int(v)) {
			return 0, false
		}
		return int(v), true
	}
	return 0, false
}
