package session

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/llm"
)

// previewLen is the length, in runes, of a TreeNode preview.
const previewLen = 100

// Entry returns the entry with id, decoded from the file.
func (s *Session) Entry(id string) (*Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	i, ok := s.idx.lookup(id)
	if !ok {
		return nil, fmt.Errorf("session: entry %s: %w", id, ErrNotFound)
	}
	return s.decode(i)
}

// Children returns the ids of the direct children of id, in file order
// ("" lists the roots).
func (s *Session) Children(id string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	if id == "" {
		for i := range s.idx.recs {
			if s.idx.recs[i].parent == none {
				out = append(out, s.idx.id(int32(i)))
			}
		}
		return out
	}
	i, ok := s.idx.lookup(id)
	if !ok {
		return nil
	}
	for _, c := range s.idx.children(i) {
		out = append(out, s.idx.id(c))
	}
	return out
}

// Branch returns the entries from the root to fromID, in order ("" = the
// current leaf; an empty slice when the leaf is before the first entry).
func (s *Session) Branch(fromID string) ([]*Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	from := s.idx.leaf
	if fromID != "" {
		var ok bool
		if from, ok = s.idx.lookup(fromID); !ok {
			return nil, fmt.Errorf("session: branch from %s: %w", fromID, ErrNotFound)
		}
	}
	path := s.idx.path(from)
	out := make([]*Entry, 0, len(path))
	for _, i := range path {
		if e := s.decodeOrWarn(i); e != nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// BranchLen is the number of entries from the root to the current leaf,
// counted without decoding them.
func (s *Session) BranchLen() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.idx.path(s.idx.leaf))
}

// TreeNode is one entry in the tree view.
type TreeNode struct {
	ID        string      `json:"id"`
	ParentID  string      `json:"parentId"`
	Type      string      `json:"type"`
	Role      string      `json:"role,omitempty"`
	Preview   string      `json:"preview"`
	Label     string      `json:"label,omitempty"`
	Timestamp string      `json:"timestamp"`
	OnBranch  bool        `json:"onBranch"`
	Children  []*TreeNode `json:"children"`
}

// Tree returns the whole tree as its roots. Leaf entries (recorded leaf
// moves) are bookkeeping and are left out: their children hang from their
// parent. Entries that fail to decode appear with type "corrupt".
func (s *Session) Tree(ctx context.Context) ([]*TreeNode, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	x := &s.idx
	onBranch := x.branchMarks()
	nodes := make([]*TreeNode, len(x.recs))
	for i := range x.recs {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r := &x.recs[i]
		if r.kind == kLeaf {
			continue
		}
		id := x.id(int32(i))
		n := &TreeNode{ID: id, Type: x.typeName(int32(i)), OnBranch: onBranch[i], Label: x.labels[id].label, Children: []*TreeNode{}}
		line, err := s.line(int32(i))
		if err == nil {
			n.Timestamp, n.Role, n.Preview, err = nodeFields(r.kind, line)
		}
		if err != nil {
			n.Type, n.Role, n.Preview = "corrupt", "", fmt.Sprintf("entry %s: %v", id, err)
		}
		nodes[i] = n
	}
	var roots []*TreeNode
	for i, n := range nodes {
		if n == nil {
			continue
		}
		p := x.recs[i].parent
		for steps := 0; p != none && x.recs[p].kind == kLeaf && steps < len(nodes); steps++ {
			p = x.recs[p].parent
		}
		if p == none || nodes[p] == nil {
			roots = append(roots, n)
			continue
		}
		n.ParentID = x.id(p)
		nodes[p].Children = append(nodes[p].Children, n)
	}
	return roots, nil
}

// blocksText joins text blocks with a space, as pi's extractTextContent.
func blocksText(c []llm.ContentBlock) string {
	var parts []string
	for _, b := range c {
		if b.Type == llm.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

// shorten collapses whitespace and cuts s to previewLen runes.
func shorten(s string) string {
	if len(s) > 8*previewLen { // only the start matters
		cut := 8 * previewLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= previewLen {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:previewLen-1]), " ") + "…"
}

// CountOnBranch counts the entries of type typ (e.g. "compaction") from the
// root to the current leaf, without decoding them.
func (s *Session) CountOnBranch(typ string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	k := kindOf(typ)
	n := 0
	for _, i := range s.idx.path(s.idx.leaf) {
		if s.idx.recs[i].kind == k {
			n++
		}
	}
	return n
}
