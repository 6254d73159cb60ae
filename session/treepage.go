package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file is the flat, paged tree of session/tree: a page lists the
// children of one entry (or the roots), each with its child count, and
// sends a linear run of entries (one child each) as its first node with a
// Chain naming its length and last entry. No node nests another, so the
// answer's depth on the wire is constant whatever the session's shape, and
// the cost of a page is the nodes it holds, not the size of the tree.

// Tree page limits.
const (
	DefaultTreeLimit = 200
	MaxTreeLimit     = 1000
	MaxTreeDepth     = 16
)

// ErrBadTreeParam is wrapped by TreePage for an unknown root, a bad cursor,
// depth or limit.
var ErrBadTreeParam = errors.New("session: bad tree parameter")

// FlatNode is one node of a tree page.
type FlatNode struct {
	ID         string `json:"id"`
	ParentID   string `json:"parentId"`
	Type       string `json:"type"`
	Role       string `json:"role,omitempty"`
	Preview    string `json:"preview"`
	Label      string `json:"label,omitempty"`
	Timestamp  string `json:"timestamp"`
	OnBranch   bool   `json:"onBranch"`
	ChildCount int    `json:"childCount"`
	Chain      *Chain `json:"chain,omitempty"`
}

// Chain describes the linear run a node stands for: Length entries, the
// node's included, down to LastID, which has LastChildCount children (0 or
// more than one) or is the current leaf. TreePage{Root: LastID} lists what
// comes below it.
type Chain struct {
	Length         int    `json:"length"`
	LastID         string `json:"lastId"`
	LastChildCount int    `json:"lastChildCount"`
}

// TreeQuery selects a page: the children of Root ("" = the roots), Depth
// levels of them (1 when 0), at most Limit nodes (DefaultTreeLimit when
// 0), starting at the cursor After of the previous page.
type TreeQuery struct {
	Root  string
	Depth int
	Limit int
	After string
	// Chain, if set, lists the entries of the run that starts at this
	// entry instead (its first node's Chain), one node each, in order, in
	// pages of Limit; Root and Depth must be unset.
	Chain string
}

// TreePageResult is one page. Next is the cursor of the following page of
// the root's children, "" when this page holds the last of them.
type TreePageResult struct {
	Nodes  []FlatNode
	LeafID string
	Next   string
}

// TreePage returns one page of the tree. Leaf entries (recorded leaf moves)
// are bookkeeping and left out: their children hang from their parent, as
// in Tree.
func (s *Session) TreePage(ctx context.Context, q TreeQuery) (TreePageResult, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return TreePageResult{}, ErrClosed
	}
	x := &s.idx
	if q.Depth == 0 {
		q.Depth = 1
	}
	if q.Limit == 0 {
		q.Limit = DefaultTreeLimit
	}
	if q.Depth < 1 || q.Depth > MaxTreeDepth {
		return TreePageResult{}, fmt.Errorf("%w: depth must be 1-%d", ErrBadTreeParam, MaxTreeDepth)
	}
	if q.Limit < 1 || q.Limit > MaxTreeLimit {
		return TreePageResult{}, fmt.Errorf("%w: limit must be 1-%d", ErrBadTreeParam, MaxTreeLimit)
	}
	if q.Chain != "" {
		return s.chainPage(ctx, q)
	}
	root := none
	if q.Root != "" {
		i, ok := x.lookup(q.Root)
		if !ok || x.recs[i].kind == kLeaf {
			return TreePageResult{}, fmt.Errorf("%w: unknown root %q", ErrBadTreeParam, q.Root)
		}
		root = i
	}
	start := 0
	if q.After != "" {
		r, off, ok := parseTreeCursor(q.After)
		if !ok || r != q.Root {
			return TreePageResult{}, fmt.Errorf("%w: cursor %q is not one of this tree's (root %q)", ErrBadTreeParam, q.After, q.Root)
		}
		start = off
	}
	t := treeWalk{s: s, onBranch: x.branchMarks()}
	kids := t.kids(root)
	if start > len(kids) {
		return TreePageResult{}, fmt.Errorf("%w: cursor %q is past the end", ErrBadTreeParam, q.After)
	}
	out := TreePageResult{Nodes: []FlatNode{}}
	if x.leaf != none {
		out.LeafID = x.id(x.leaf)
	}
	for k := start; k < len(kids); k++ {
		if err := ctx.Err(); err != nil {
			return TreePageResult{}, err
		}
		sub := t.subtree(kids[k], q.Depth, q.Limit)
		if len(out.Nodes) > 0 && len(out.Nodes)+len(sub) > q.Limit {
			out.Next = treeCursor(q.Root, k)
			break
		}
		out.Nodes = append(out.Nodes, sub...)
		if len(out.Nodes) >= q.Limit && k+1 < len(kids) {
			out.Next = treeCursor(q.Root, k+1)
			break
		}
	}
	return out, nil
}

// chainPage lists the entries of the run starting at q.Chain. The caller
// holds s.mu.
func (s *Session) chainPage(ctx context.Context, q TreeQuery) (TreePageResult, error) {
	x := &s.idx
	if q.Root != "" || q.Depth > 1 {
		return TreePageResult{}, fmt.Errorf("%w: chain lists one run: no root or depth with it", ErrBadTreeParam)
	}
	first, ok := x.lookup(q.Chain)
	if !ok || x.recs[first].kind == kLeaf {
		return TreePageResult{}, fmt.Errorf("%w: unknown chain %q", ErrBadTreeParam, q.Chain)
	}
	start := 0
	if q.After != "" {
		r, off, ok := parseTreeCursor(q.After)
		if !ok || r != "chain:"+q.Chain {
			return TreePageResult{}, fmt.Errorf("%w: cursor %q is not one of this chain's", ErrBadTreeParam, q.After)
		}
		start = off
	}
	t := treeWalk{s: s, onBranch: x.branchMarks()}
	out := TreePageResult{Nodes: []FlatNode{}}
	if x.leaf != none {
		out.LeafID = x.id(x.leaf)
	}
	i, k := first, 0
	for {
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return TreePageResult{}, err
			}
		}
		kids := t.kids(i)
		if k >= start {
			if len(out.Nodes) == q.Limit {
				out.Next = treeCursor("chain:"+q.Chain, k)
				break
			}
			n, _ := t.node(i, false)
			out.Nodes = append(out.Nodes, n)
		}
		if len(kids) != 1 || i == x.leaf {
			break
		}
		i, k = kids[0], k+1
	}
	if start > k {
		return TreePageResult{}, fmt.Errorf("%w: cursor %q is past the end of the chain", ErrBadTreeParam, q.After)
	}
	return out, nil
}

// treeCursor encodes a position in a root's children.
func treeCursor(root string, off int) string { return "t1." + strconv.Itoa(off) + "." + root }

func parseTreeCursor(c string) (root string, off int, ok bool) {
	rest, ok := strings.CutPrefix(c, "t1.")
	if !ok {
		return "", 0, false
	}
	n, root, ok := strings.Cut(rest, ".")
	if !ok {
		return "", 0, false
	}
	off, err := strconv.Atoi(n)
	if err != nil || off < 0 || strconv.Itoa(off) != n {
		return "", 0, false
	}
	return root, off, true
}

type treeWalk struct {
	s        *Session
	onBranch []bool // by record: on the current branch
}

// kids lists the children of i (none = the roots), leaf entries replaced
// by their own children.
func (t *treeWalk) kids(i int32) []int32 {
	x := &t.s.idx
	var out []int32
	var add func(c int32, depth int)
	add = func(c int32, depth int) {
		if x.recs[c].kind == kLeaf {
			if depth > 64 { // a long run of leaf moves: keep the stack small
				return
			}
			for g := x.recs[c].child; g != none; g = x.recs[g].sibling {
				add(g, depth+1)
			}
			return
		}
		out = append(out, c)
	}
	if i == none {
		for j := range x.recs {
			if x.recs[j].parent == none {
				add(int32(j), 0)
			}
		}
		return out
	}
	for c := x.recs[i].child; c != none; c = x.recs[c].sibling {
		add(c, 0)
	}
	return out
}

// subtree returns the node for i (its run compressed) and, depth-1 levels
// down, the nodes below the run's last entry, at most limit in all.
func (t *treeWalk) subtree(i int32, depth, limit int) []FlatNode {
	n, last := t.node(i, true)
	out := []FlatNode{n}
	if depth <= 1 {
		return out
	}
	for _, c := range t.kids(last) {
		if len(out) >= limit {
			break
		}
		out = append(out, t.subtree(c, depth-1, limit-len(out))...)
	}
	return out
}

// node builds i's node and, with run, compresses the run it starts and
// returns its last entry.
func (t *treeWalk) node(i int32, run bool) (FlatNode, int32) {
	s, x := t.s, &t.s.idx
	r := &x.recs[i]
	kids := t.kids(i)
	id := x.id(i)
	n := FlatNode{ID: id, Type: x.typeName(i), OnBranch: t.onBranch[i], Label: x.labels[id].label, ChildCount: len(kids)}
	if p := r.parent; p != none {
		for steps := 0; p != none && x.recs[p].kind == kLeaf && steps <= len(x.recs); steps++ {
			p = x.recs[p].parent
		}
		if p != none {
			n.ParentID = x.id(p)
		}
	}
	line, err := s.line(i)
	if err == nil {
		n.Timestamp, n.Role, n.Preview, err = nodeFields(r.kind, line)
	}
	if err != nil {
		n.Type, n.Role, n.Preview = "corrupt", "", fmt.Sprintf("entry %s: %v", id, err)
	}
	last, length := i, 1
	for run && len(kids) == 1 && last != x.leaf {
		last = kids[0]
		length++
		kids = t.kids(last)
	}
	if length > 1 {
		n.Chain = &Chain{Length: length, LastID: x.id(last), LastChildCount: len(kids)}
	}
	return n, last
}
