package display

// foldPushes sends an item pushed in this frame as it is now: ops on it
// later in the frame are already in items[at] (the reducer's state, which
// the caller holds the lock of), so the push carries the current item and
// those ops are dropped. An answer that starts within a frame costs one push
// carrying its first text, not a push and an append; a tool that starts and
// ends within one costs one push of the finished item. at[i] is the index in
// items that op i's push landed at, or -1 for other ops.
func foldPushes(ops []Op, at []int, items []Item) []Op {
	dropped := false
	for i := range ops {
		if ops[i].Op != OpPush || at[i] < 0 || at[i] >= len(items) {
			continue
		}
		base := ops[i].Path
		ops[i].Value = deepCopy(items[at[i]])
		for j := i + 1; j < len(ops); j++ {
			o := &ops[j]
			if o.Op != "" && len(o.Path) > len(base) && samePath(o.Path[:len(base)], base) && sameElem(o.Path[len(base)], at[i]) {
				o.Op = ""
				dropped = true
			}
		}
	}
	if !dropped {
		return ops
	}
	kept := ops[:0]
	for i, o := range ops {
		if o.Op != "" {
			at[len(kept)] = at[i]
			kept = append(kept, o)
		}
	}
	clear(ops[len(kept):])
	return kept
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
