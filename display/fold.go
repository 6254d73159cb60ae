package display

import "encoding/json"

// foldPushes moves ops on an item that was pushed earlier in the same frame
// into the pushed value, so a new item goes out whole: an answer that starts
// within a frame costs one push carrying its first text, not a push and an
// append, and a short answer costs one push and nothing else. at[i] is the
// array index op i's push lands at (-1 when unknown). Ops are folded in
// order; the first op on the item that cannot be folded stops folding for
// that item, so the order of changes to it is kept. Folded ops are removed.
func foldPushes(ops []Op, at []int) []Op {
	dropped := false
	for i := range ops {
		if ops[i].Op != OpPush || at[i] < 0 {
			continue
		}
		it, ok := ops[i].Value.(Item)
		if !ok {
			continue
		}
		base := ops[i].Path
		changed := false
		for j := i + 1; j < len(ops); j++ {
			o := &ops[j]
			if o.Op == "" || len(o.Path) <= len(base) || !samePath(o.Path[:len(base)], base) ||
				!sameElem(o.Path[len(base)], at[i]) {
				continue
			}
			if !it.fold(o, len(base)) {
				break
			}
			o.Op = ""
			changed, dropped = true, true
		}
		if changed {
			ops[i].Value = it
		}
	}
	if !dropped {
		return ops
	}
	kept := ops[:0]
	for _, o := range ops {
		if o.Op != "" {
			kept = append(kept, o)
		}
	}
	clear(ops[len(kept):])
	return kept
}

// fold applies o, whose path is the item's own path (depth elements) plus at
// most one field name, to it. It reports false for an op it cannot apply.
func (it *Item) fold(o *Op, depth int) bool {
	switch len(o.Path) - depth {
	case 1: // the whole item
		v, ok := o.Value.(Item)
		if !ok || o.Op != OpSet {
			return false
		}
		*it = v
		return true
	case 2:
		name, ok := o.Path[depth+1].(string)
		if !ok {
			return false
		}
		switch o.Op {
		case OpAppend:
			s, ok := o.Value.(string)
			p := it.stringField(name)
			if !ok || p == nil {
				return false
			}
			*p += s
			return true
		case OpSet:
			return it.setField(name, o.Value)
		}
	}
	return false
}

// stringField returns the string field named as on the wire, or nil.
func (it *Item) stringField(name string) *string {
	switch name {
	case "text":
		return &it.Text
	case "thinking":
		return &it.Thinking
	case "output":
		return &it.Output
	case "diff":
		return &it.Diff
	case "path":
		return &it.Path
	case "status":
		return &it.Status
	case "toolName":
		return &it.ToolName
	case "command":
		return &it.Command
	case "summaryKind":
		return &it.SummaryKind
	}
	return nil
}

// setField sets the field named as on the wire to v when v has its type.
func (it *Item) setField(name string, v any) bool {
	if p := it.stringField(name); p != nil {
		s, ok := v.(string)
		if ok {
			*p = s
		}
		return ok
	}
	switch name {
	case "streaming":
		b, ok := v.(bool)
		if ok {
			it.Streaming = b
		}
		return ok
	case "isError":
		b, ok := v.(bool)
		if ok {
			it.IsError = b
		}
		return ok
	case "args":
		a, ok := v.(json.RawMessage)
		if ok {
			it.Args = a
		}
		return ok
	case "exitCode":
		c, ok := v.(*int)
		if ok {
			it.ExitCode = c
		}
		return ok
	}
	return false
}

// mergeSets turns each run of two or more consecutive sets of different keys
// of one object into a single merge op: [["s",["phase"],"idle"],
// ["s",["status"],"idle"]] becomes ["m",[],{"phase":"idle","status":"idle"}],
// which is shorter on the wire (a run's end sets phase, status and several
// token counters; a tool's end sets its status, output and diff).
func mergeSets(ops []Op) []Op {
	out := ops[:0]
	for i := 0; i < len(ops); {
		j := i + 1
		if key, ok := setKey(ops[i]); ok {
			parent := ops[i].Path[:len(ops[i].Path)-1]
			seen := map[string]bool{key: true}
			for ; j < len(ops); j++ {
				k, ok := setKey(ops[j])
				if !ok || seen[k] || len(ops[j].Path) != len(ops[i].Path) || !samePath(ops[j].Path[:len(parent)], parent) {
					break
				}
				seen[k] = true
			}
		}
		if j-i < 2 {
			out = append(out, ops[i])
			i++
			continue
		}
		fs := make(Fields, 0, j-i)
		for _, o := range ops[i:j] {
			fs = append(fs, Field{Key: o.Path[len(o.Path)-1].(string), Value: o.Value})
		}
		out = append(out, Op{Op: OpMerge, Path: ops[i].Path[:len(ops[i].Path)-1], Value: fs})
		i = j
	}
	clear(ops[len(out):])
	return out
}

// setKey returns the object key a set op writes, if it writes one.
func setKey(o Op) (string, bool) {
	if o.Op != OpSet || len(o.Path) == 0 {
		return "", false
	}
	k, ok := o.Path[len(o.Path)-1].(string)
	return k, ok
}
