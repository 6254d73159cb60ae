package server

import (
	"context"
	"errors"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// registerHistory adds display/history and the flat, paged session/tree.
func (a *agent) registerHistory(s *rpc.Server) {
	s.Register("display/history", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.HistoryParams) (any, error) {
		if p.Before == "" {
			return nil, rpc.ErrInvalidParams(`"before" is required: the cursor of the state's "history" or of the previous page`)
		}
		if p.Limit == 0 {
			p.Limit = display.DefaultItems
		}
		if p.Limit < 1 || p.Limit > display.MaxHistoryLimit {
			return nil, rpc.ErrInvalidParams(`"limit" must be 1-1000`)
		}
		items, older, err := display.Page(ctx, h, p.Before, p.Limit, display.MaxStateBytes)
		if errors.Is(err, display.ErrBadCursor) {
			return nil, rpc.ErrInvalidParams(err.Error())
		}
		if err != nil {
			return nil, err
		}
		res := protocol.HistoryResult{Items: items}
		if older != nil {
			res.Before = &older.Before
		}
		return res, nil
	}))
	s.Register("session/tree", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.TreeParams) (any, error) {
		page, ok, err := h.TreePage(ctx, session.TreeQuery{Chain: p.Chain, Root: p.Root, Depth: p.Depth, Limit: p.Limit, After: p.After})
		if !ok {
			if p.Root != "" || p.After != "" || p.Chain != "" {
				return nil, rpc.ErrInvalidParams("no session is open")
			}
			return protocol.TreeResult{Nodes: []protocol.TreeNode{}}, nil
		}
		if errors.Is(err, session.ErrBadTreeParam) {
			return nil, rpc.ErrInvalidParams(err.Error())
		}
		if err != nil {
			return nil, err
		}
		res := protocol.TreeResult{Nodes: make([]protocol.TreeNode, len(page.Nodes)), LeafID: page.LeafID}
		for i, n := range page.Nodes {
			res.Nodes[i] = protocol.TreeNode{ID: n.ID, ParentID: n.ParentID, Type: n.Type, Role: n.Role, Preview: n.Preview,
				Label: n.Label, Timestamp: n.Timestamp, OnBranch: n.OnBranch, ChildCount: n.ChildCount}
			if c := n.Chain; c != nil {
				res.Nodes[i].Chain = &protocol.TreeChain{Length: c.Length, LastID: c.LastID, LastChildCount: c.LastChildCount}
			}
		}
		if page.Next != "" {
			res.Next = &page.Next
		}
		return res, nil
	}))
}
