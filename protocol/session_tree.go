package protocol

// TreeParams are session/tree's params: the children of Root (omitted: the
// roots), Depth levels of them (default 1, at most 16), at most Limit
// nodes (default 200, 1–1000), from the cursor After of a previous page.
//
// Chain, instead, lists the entries of the run that starts at that entry
// (a node carrying TreeChain), one node each, in order, Limit per page.
type TreeParams struct {
	Chain string `json:"chain,omitempty"`
	Root  string `json:"root,omitempty"`
	Depth int    `json:"depth,omitempty"`
	Limit int    `json:"limit,omitempty"`
	After string `json:"after,omitempty"`
}

// TreeResult is session/tree's answer: a flat list of nodes (none nests
// another; ParentID gives the structure), the current leaf, and the cursor
// of the next page of the root's children (nil after the last).
type TreeResult struct {
	Nodes  []TreeNode `json:"nodes"`
	LeafID string     `json:"leafId"`
	Next   *string    `json:"next"`
}

// TreeNode is one entry of the tree. A node standing for a linear run of
// entries (one child each) carries Chain; ChildCount is the node's own
// children.
type TreeNode struct {
	ID         string     `json:"id"`
	ParentID   string     `json:"parentId"`
	Type       string     `json:"type"`
	Role       string     `json:"role,omitempty"`
	Preview    string     `json:"preview"`
	Label      string     `json:"label,omitempty"`
	Timestamp  string     `json:"timestamp"`
	OnBranch   bool       `json:"onBranch"`
	ChildCount int        `json:"childCount"`
	Chain      *TreeChain `json:"chain,omitempty"`
}

// TreeChain is the run a node stands for: Length entries from the node to
// LastID, which has LastChildCount children (or is the current leaf).
// session/tree {"root": LastID} lists what comes below it.
type TreeChain struct {
	Length         int    `json:"length"`
	LastID         string `json:"lastId"`
	LastChildCount int    `json:"lastChildCount"`
}
