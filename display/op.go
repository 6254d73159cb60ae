package display

import (
	"fmt"
)

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
