package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// handler adapts a typed method to a HandlerFunc: params are decoded into P
// (-32602 on a mismatch) and errors are mapped to protocol errors.
func handle[P any](a *agent, fn func(ctx context.Context, h *harness.Harness, p P) (any, error)) rpc.HandlerFunc {
	return func(ctx context.Context, c *rpc.Client, raw json.RawMessage) (any, error) {
		h, err := a.need(c)
		if err != nil {
			return nil, err
		}
		p, err := rpc.Params[P](raw)
		if err != nil {
			return nil, err
		}
		res, err := fn(ctx, h, p)
		if err != nil {
			return nil, mapErr(err)
		}
		return res, nil
	}
}

type empty = protocol.EmptyResult

type sessionResult = protocol.SessionResult

func (a *agent) register(s *rpc.Server) {
	s.Register("session/new", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.SessionNewParams) (any, error) {
		info, err := h.NewSession(ctx, p.Cwd)
		return sessionResult{SessionID: info.ID, Path: info.Path}, err
	}))
	s.Register("session/open", a.sessionOpen) // attach_host.go
	s.Register("session/list", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.SessionListParams) (any, error) {
		var list []session.Info
		var err error
		cwd := p.Cwd
		if cwd == "" {
			cwd = h.Cwd()
		}
		switch {
		case p.All && p.IncludeSubagents:
			list, err = session.ListAllWithSubagents(ctx, a.opts.SessionsRoot)
		case p.All:
			list, err = session.ListAll(ctx, a.opts.SessionsRoot)
		case p.IncludeSubagents:
			list, err = session.ListWithSubagents(ctx, a.opts.SessionsRoot, cwd)
		default:
			list, err = session.List(ctx, a.opts.SessionsRoot, cwd)
		}
		return protocol.SessionItemsResult{Sessions: listItems(list, p.IncludeEmpty, h.SessionInfo().ID)}, err
	}))
	s.Register("session/fork", handle(a, a.fork))   // methods_rewind.go
	s.Register("session/clone", handle(a, a.clone)) // methods_rewind.go
	s.Register("session/entries", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.SessionEntriesParams) (any, error) {
		return entries(h, p.IDs, p.FromID, p.Limit)
	}))
	s.Register("session/navigate", handle(a, a.navigate)) // methods_rewind.go
	s.Register("session/setName", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.SessionSetNameParams) (any, error) {
		if p.Name == nil {
			return nil, rpc.ErrInvalidParams(`"name" is required`)
		}
		return empty{}, h.SetName(ctx, *p.Name)
	}))
	s.Register("session/label", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.SessionLabelParams) (any, error) {
		if p.EntryID == "" {
			return nil, rpc.ErrInvalidParams(`"entryId" is required`)
		}
		return empty{}, h.Label(ctx, p.EntryID, p.Label)
	}))
	s.Register("session/state", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		return toSessionState(h.State(ctx)), nil
	}))
	s.Register("session/export", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.SessionExportParams) (any, error) {
		return export(ctx, h, p.Format)
	}))
	a.registerAgent(s)
	a.registerConfig(s)
	a.registerEditor(s)
	a.registerMCP(s)
	a.registerMCPAuth(s)
	a.registerHistory(s)
	a.registerImage(s) // methods_image.go
	a.registerMemory(s)
	a.registerGoal(s)
	a.registerJobs(s) // methods_jobs.go
	a.registerRewind(s)
	a.registerQueue(s) // methods_queue.go
}

func entries(h *harness.Harness, ids []string, fromID string, limit int) (any, error) {
	if len(ids) > 0 {
		out, err := h.Entries(ids)
		if err != nil {
			return nil, rpc.ErrNotFound(strings.TrimPrefix(err.Error(), harness.ErrNotFound.Error()+": "))
		}
		return protocol.EntriesResult{Entries: out}, nil
	}
	if limit <= 0 {
		limit = 1000
	}
	out, err := h.BranchEntries(fromID, limit)
	if errors.Is(err, harness.ErrNotFound) {
		return nil, rpc.ErrNotFound(strings.TrimPrefix(err.Error(), harness.ErrNotFound.Error()+": "))
	}
	if err != nil {
		return nil, err
	}
	return protocol.EntriesResult{Entries: out}, nil
}

func export(ctx context.Context, h *harness.Harness, format string) (any, error) {
	info := h.SessionInfo()
	if info.ID == "" {
		return nil, harness.ErrNoSession
	}
	switch format {
	case "jsonl":
		data, err := h.SessionFile()
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		return protocol.ExportResult{Text: string(data)}, nil
	case "", "markdown":
		var b strings.Builder
		fmt.Fprintf(&b, "# Session %s\n\n", info.ID)
		for _, m := range h.DisplayHistory(ctx) {
			switch m.Role {
			case llm.RoleUser:
				fmt.Fprintf(&b, "## User\n\n%s\n\n", m.Text())
			case llm.RoleAssistant:
				fmt.Fprintf(&b, "## Assistant\n\n%s\n\n", m.Text())
				for _, c := range m.ToolCalls() {
					fmt.Fprintf(&b, "Tool call `%s` `%s`\n\n", c.Name, string(c.Arguments))
				}
			case llm.RoleToolResult:
				fmt.Fprintf(&b, "```\n%s\n```\n\n", m.Text())
			case llm.RoleCompactionSummary, llm.RoleBranchSummary:
				fmt.Fprintf(&b, "## Summary\n\n%s\n\n", m.Summary)
			case llm.RoleBashExecution:
				fmt.Fprintf(&b, "```\n$ %s\n%s\n```\n\n", m.Command, m.Output)
			}
		}
		return protocol.ExportResult{Text: b.String()}, nil
	default:
		return nil, rpc.ErrInvalidParams(`"format" must be "markdown" or "jsonl"`)
	}
}
