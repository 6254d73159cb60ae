package session

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pi-lsp/pi-lsp/llm"
)

// kind is an entry type as a small number, so the index stays compact.
type kind uint8

const (
	kUnknown kind = iota
	kMessage
	kModelChange
	kThinking
	kCompaction
	kBranchSummary
	kCustom
	kCustomMessage
	kLabel
	kSessionInfo
	kLeaf
)

var kindNames = [...]string{
	kUnknown: "", kMessage: TypeMessage, kModelChange: TypeModelChange, kThinking: TypeThinkingLevel,
	kCompaction: TypeCompaction, kBranchSummary: TypeBranchSummary, kCustom: TypeCustom,
	kCustomMessage: TypeCustomMessage, kLabel: TypeLabel, kSessionInfo: TypeSessionInfo, kLeaf: TypeLeaf,
}

func kindOf(t string) kind {
	for k, n := range kindNames {
		if k > 0 && n == t {
			return kind(k)
		}
	}
	return kUnknown
}

// Message roles as small numbers (0 = not a message or no role).
var roleNames = [...]string{"", "user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary"}

const roleOther = uint8(len(roleNames))

func roleOf(r string) uint8 {
	if r == "" {
		return 0
	}
	if r == "hookMessage" { // v2 name of "custom"
		r = "custom"
	}
	for i, n := range roleNames {
		if i > 0 && n == r {
			return uint8(i)
		}
	}
	return roleOther
}

const none = int32(-1)

// rec is the index record of one entry: where its line is and how it links
// into the tree. No decoded content is kept, and it holds no pointers: the
// id is a span of index.ids and links are record numbers, so the collector
// never scans the records of a 100k-entry session (one pointer-free
// allocation) and each takes 48 bytes.
type rec struct {
	off     int64  // byte offset of the line
	idOff   uint32 // the id is index.ids[idOff : idOff+idLen]
	idLen   uint32
	n       int32 // line length without the newline
	parent  int32 // none = root
	child   int32 // first child, none if none
	sibling int32 // next sibling, none if last
	kind    kind
	role    uint8
	items   uint16 // display items the entry gives (see items.go)
	calls   uint16 // tool calls it opens
	aux     int32  // custom/custom_message: customType; unknown kind: type name (both in strs); assistant message: 1 + its index in usage, 0 if none
	line    int32  // line number in the file (1 = the header), for warnings
}

type labelVal struct{ label, ts string }

// index is the in-memory tree of a session file.
type index struct {
	recs    []rec
	ids     []byte // every record's id, back to back (see rec.idOff)
	byID    *lazyIDs
	strs    []string // interned customType values and unknown type names
	strIdx  map[string]int32
	labels  map[string]labelVal // by target id
	name    string
	leaf    int32            // current leaf, none = before the first entry
	pending map[int32]string // parent ids not yet seen while scanning
	linear  bool             // v1 file: ids and parents are synthesised
	usage   []usageRec       // assistant messages' recorded usage (see rec.aux)
	costs   []llm.Cost       // the recorded costs that are not zero (see usageRec.cost)
	cost    llm.Cost         // the sum of costs
	// activity is the latest entry time by pi's "last activity" rule
	// (lineInfo.activity), in milliseconds, when hasActivity: the session
	// list's "modified", kept in the sidecar (list_sidecar.go).
	activity    int64
	hasActivity bool
}

func newIndex(linear bool) index {
	return index{byID: &lazyIDs{}, strIdx: map[string]int32{}, labels: map[string]labelVal{}, leaf: none, linear: linear}
}

func (x *index) intern(s string) int32 {
	if i, ok := x.strIdx[s]; ok {
		return i
	}
	i := int32(len(x.strs))
	x.strs = append(x.strs, s)
	x.strIdx[s] = i
	return i
}

// typeName returns the entry type of record i.
func (x *index) typeName(i int32) string {
	r := &x.recs[i]
	if r.kind == kUnknown {
		return x.strs[r.aux]
	}
	return kindNames[r.kind]
}

// add indexes one entry line. It returns a warning for odd but tolerated
// lines (a label or leaf entry that does not decode).
func (x *index) add(li lineInfo, line []byte, off int64) string {
	i := int32(len(x.recs))
	n := int32(len(line))
	if li.parsed {
		n = li.n
	}
	r := rec{off: off, n: n, parent: none, child: none, sibling: none, kind: kindOf(li.typ), role: roleOf(li.role)}
	if r.kind == kUnknown {
		r.aux = x.intern(li.typ)
	}
	if r.kind == kCustom || r.kind == kCustomMessage {
		r.aux = x.intern(li.customType)
	}
	if r.kind != kMessage {
		r.role = 0
	}
	setItems(&r, &li)
	if li.hasActivity && (!x.hasActivity || li.activity > x.activity) {
		x.activity, x.hasActivity = li.activity, true
	}
	if r.kind == kMessage && r.role == roleAssistant {
		var c llm.Cost
		var u usageRec
		if li.parsed {
			u, c = li.u, li.cost
		} else {
			u = parseUsage(li.usage, li.stopReason, &c)
		}
		if c != (llm.Cost{}) {
			x.costs = append(x.costs, c)
			u.cost = int32(len(x.costs))
			x.cost = x.cost.Add(c)
		}
		x.usage = append(x.usage, u)
		r.aux = int32(len(x.usage))
	}
	if x.linear {
		// pi's migrateV1ToV2: every entry gets an id, parented on the one before.
		x.setID(&r, fmt.Sprintf("%08x", i+1))
		if i > 0 {
			r.parent = i - 1
		}
	} else {
		x.setID(&r, li.id)
		if li.hasParent && !li.parentNull && li.parent != li.id {
			if p, ok := x.parentOf(i, li.parent); ok {
				r.parent = p
			} else {
				if x.pending == nil {
					x.pending = map[int32]string{}
				}
				x.pending[i] = li.parent
			}
		}
	}
	x.recs = append(x.recs, r)
	x.byID.added(x, i)
	return x.after(i, line)
}

// after applies an entry's effect on labels, name and leaf, as pi's
// _buildIndex does (every entry becomes the leaf; a leaf entry moves it).
func (x *index) after(i int32, line []byte) string {
	r := &x.recs[i]
	x.leaf = i
	switch r.kind {
	case kLabel:
		var l struct {
			TargetID string  `json:"targetId"`
			Label    *string `json:"label"`
			TS       string  `json:"timestamp"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return fmt.Sprintf("label entry %s: %v", x.id(i), err)
		}
		if l.Label != nil && *l.Label != "" {
			x.labels[l.TargetID] = labelVal{*l.Label, l.TS}
		} else {
			delete(x.labels, l.TargetID)
		}
	case kSessionInfo:
		var si struct {
			Name *string `json:"name"`
		}
		if err := json.Unmarshal(line, &si); err != nil {
			return fmt.Sprintf("session_info entry %s: %v", x.id(i), err)
		}
		x.name = ""
		if si.Name != nil {
			x.name = strings.TrimSpace(*si.Name)
		}
	case kLeaf:
		var lf struct {
			TargetID json.RawMessage `json:"targetId"`
		}
		if err := json.Unmarshal(line, &lf); err != nil {
			x.leaf = r.parent
			return fmt.Sprintf("leaf entry %s: %v", x.id(i), err)
		}
		x.leaf = r.parent
		if lf.TargetID != nil {
			if t, ok := stringValue(lf.TargetID); !ok || t == "" {
				x.leaf = none
			} else if ti, ok := x.lookup(t); ok {
				x.leaf = ti
			}
		}
	}
	return ""
}

// finish resolves parents that appeared after their children and links
// children in file order.
func (x *index) finish() (warnings []string) {
	type orphan struct {
		i   int32
		pid string
	}
	orphans := []orphan{}
	for i, pid := range x.pending {
		if p, ok := x.lookup(pid); ok && p != i {
			x.recs[i].parent = p
		} else if !ok {
			orphans = append(orphans, orphan{i, pid})
		}
	}
	x.pending = nil
	// An entry whose parent is in no line (lost in a torn or corrupt line)
	// is re-linked to the last entry before it in the file, so the history
	// before the break stays on its branch.
	sort.Slice(orphans, func(a, b int) bool { return orphans[a].i < orphans[b].i })
	for _, o := range orphans {
		if o.i == 0 {
			continue
		}
		prev := o.i - 1
		warnings = append(warnings, fmt.Sprintf("line %d: entry %s: its parent %s is in no line of the file (lost in a torn or corrupt line); re-linked to %s, the last entry before it (line %d)",
			x.recs[o.i].line, x.id(o.i), o.pid, x.id(prev), x.recs[prev].line))
		x.recs[o.i].parent = prev
	}
	for i := len(x.recs) - 1; i >= 0; i-- {
		p := x.recs[i].parent
		if p != none {
			x.recs[i].sibling = x.recs[p].child
			x.recs[p].child = int32(i)
		}
	}
	return warnings
}

// link appends record i to its parent's children (after finish).
func (x *index) link(i int32) {
	p := x.recs[i].parent
	if p == none {
		return
	}
	c := x.recs[p].child
	if c == none {
		x.recs[p].child = i
		return
	}
	for x.recs[c].sibling != none {
		c = x.recs[c].sibling
	}
	x.recs[c].sibling = i
}

// path returns the records from the root to i (none gives an empty path).
// A parent cycle (only possible in a hand-edited file) is cut.
func (x *index) path(i int32) []int32 {
	// Count first, then fill from the end: one allocation of the exact
	// size (the branch of a large session is 100k+ entries).
	n := 0
	for j := i; j != none && n <= len(x.recs); n++ {
		j = x.recs[j].parent
	}
	p := make([]int32, n)
	for k := n - 1; k >= 0; k-- {
		p[k] = i
		i = x.recs[i].parent
	}
	return p
}

// branchMarks marks the records on the current branch (the leaf's path),
// indexed by record: a tree page of a 100k-entry branch sets 100k bools
// instead of growing a map of them.
func (x *index) branchMarks() []bool {
	m := make([]bool, len(x.recs))
	if x.leaf != none {
		for _, i := range x.path(x.leaf) {
			m[i] = true
		}
	}
	return m
}

// children lists the children of i in file order.
func (x *index) children(i int32) []int32 {
	var out []int32
	for c := x.recs[i].child; c != none; c = x.recs[c].sibling {
		out = append(out, c)
	}
	return out
}

// lookup returns the record of id.
func (x *index) lookup(id string) (int32, bool) {
	return x.byID.get(x, id)
}

// parentOf looks up the parent id of the record about to be added as i:
// in a chain it is the record just before, which needs no hashing.
func (x *index) parentOf(i int32, id string) (int32, bool) {
	if i > 0 && x.idIs(i-1, id) {
		return i - 1, true
	}
	return x.lookup(id)
}

// setID appends id to the id arena as r's id.
func (x *index) setID(r *rec, id string) {
	r.idOff, r.idLen = uint32(len(x.ids)), uint32(len(id))
	x.ids = append(x.ids, id...)
}

// idBytes returns record i's id in the arena (not to be changed or kept
// past the next append).
func (x *index) idBytes(i int32) []byte {
	r := &x.recs[i]
	return x.ids[r.idOff : r.idOff+r.idLen : r.idOff+r.idLen]
}

// id returns record i's id.
func (x *index) id(i int32) string { return string(x.idBytes(i)) }

// idIs reports whether record i's id is id (no allocation).
func (x *index) idIs(i int32, id string) bool { return string(x.idBytes(i)) == id }
