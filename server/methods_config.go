package server

import (
	"context"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/skills"
)

func (a *agent) registerConfig(s *rpc.Server) {
	s.Register("model/list", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		var models []ModelEntry
		if a.opts.Models != nil {
			var err error
			if models, err = a.opts.Models(ctx); err != nil {
				return nil, err
			}
		}
		if models == nil {
			models = []ModelEntry{}
		}
		cur := ""
		if m, err := h.Model(ctx); err == nil {
			cur = m.Ref()
		}
		return protocol.ModelListResult{Current: cur, Models: models}, nil
	}))
	s.Register("model/set", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.ModelSetParams) (any, error) {
		if p.Model == "" {
			return nil, rpc.ErrInvalidParams(`"model" is required (provider/id)`)
		}
		ref, err := h.SetModel(ctx, p.Model)
		return protocol.ModelSetResult{Model: ref}, err
	}))
	s.Register("thinking/set", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.ThinkingSetParams) (any, error) {
		if err := h.SetThinking(ctx, llm.ThinkingLevel(p.Level)); err != nil {
			return nil, err
		}
		return protocol.ThinkingSetResult{ThinkingLevel: p.Level}, nil
	}))
	s.Register("mode/list", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		ms := h.ModeState()
		var out []protocol.Mode
		for _, m := range h.Modes() {
			model := ms.ModeModels[m.ID]
			if m.ID == ms.Mode {
				model = ms.Model
			}
			if model == "" {
				model = m.DefaultModel
			}
			out = append(out, protocol.Mode{ID: m.ID, Name: m.Name, Color: m.Color, Model: model})
		}
		return protocol.ModeListResult{Current: ms.Mode, Yolo: ms.Yolo, Modes: out}, nil
	}))
	s.Register("mode/set", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.ModeSetParams) (any, error) {
		if p.Mode == "" && p.Yolo == nil {
			return nil, rpc.ErrInvalidParams(`give "mode", "yolo" or both`)
		}
		if p.Mode != "" && p.Mode != h.ModeState().Mode {
			if _, err := h.SetMode(ctx, p.Mode); err != nil {
				return nil, err
			}
		}
		if p.Yolo != nil {
			h.SetYolo(ctx, *p.Yolo)
		}
		ms := h.ModeState()
		return protocol.ModeSetResult{Mode: ms.Mode, Model: ms.Model, Yolo: ms.Yolo}, nil
	}))
	s.Register("compaction/run", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.CompactionRunParams) (any, error) {
		return wrapResult(toCompactionResult)(h.Compact(ctx, p.CustomInstructions))
	}))
	s.Register("compaction/setAuto", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.CompactionSetAutoParams) (any, error) {
		if p.Enabled == nil {
			return nil, rpc.ErrInvalidParams(`"enabled" is required`)
		}
		h.SetAutoCompaction(ctx, *p.Enabled)
		return protocol.AutoCompactionResult{Enabled: *p.Enabled}, nil
	}))
	s.Register("permissions/get", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		return toPermissions(h.Permissions()), nil
	}))
	s.Register("permissions/set", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.PermissionsSetParams) (any, error) {
		return wrapResult(toPermissions)(h.SetPermissions(ctx, fromPermissionsSet(p)))
	}))
	s.Register("skills/list", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		return toSkillsList(h.Skills(ctx)), nil
	}))
	s.Register("templates/list", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		return toTemplatesList(h.Skills(ctx).Templates), nil
	}))
	s.Register("commands/list", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		var cs []skills.Command
		for _, c := range h.Commands(ctx) { // templates, skills, prompts of ready MCP servers
			cs = append(cs, skills.Command{Name: c.Name, Description: c.Description, Kind: c.Kind, Source: c.Source, Path: c.Path, ArgumentHint: c.ArgumentHint})
		}
		res := toCommandsList(cs)
		builtins := make([]protocol.Command, 0, len(res.Commands)+6)
		for _, b := range harness.BuiltinCommands() {
			builtins = append(builtins, protocol.Command{Name: b.Name, Description: b.Description, Kind: b.Kind, ArgumentHint: b.ArgumentHint, Method: b.Method})
		}
		res.Commands = append(builtins, res.Commands...)
		return res, nil
	}))
	s.Register("agents/list", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		return agentsList(h.Agents(ctx)), nil
	}))
	s.Register("tasks/list", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		return protocol.TasksListResult{Tasks: toTasks(h.Tasks())}, nil
	}))
}
