package acp

import (
	"context"
	"sort"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Config option ids.
const (
	configModel    = "model"
	configThinking = "thinking"
)

var thinkingLevels = []llm.ThinkingLevel{llm.ThinkingOff, llm.ThinkingLow, llm.ThinkingMedium, llm.ThinkingHigh, llm.ThinkingXHigh}

func thinkingLevel(v string) llm.ThinkingLevel { return llm.ThinkingLevel(v) }

// modeState lists the harness's modes (Build, Plan, Fast by default).
func (s *sess) modeState() *sdk.SessionModeState {
	ms := s.h.ModeState()
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(ms.Mode)}
	for _, m := range s.h.Modes() {
		mode := sdk.SessionMode{Id: sdk.SessionModeId(m.ID), Name: m.Name}
		switch {
		case m.ReadOnly:
			mode.Description = sdk.Ptr("read-only tools; ends with a plan to approve")
		case len(m.Tools) > 0:
			mode.Description = sdk.Ptr("tools: " + strings.Join(m.Tools, ", "))
		}
		st.AvailableModes = append(st.AvailableModes, mode)
	}
	return st
}

// configOptions are the model and the thinking level.
func (s *sess) configOptions(ctx context.Context) []sdk.SessionConfigOption {
	cur := ""
	if m, err := s.h.Model(ctx); err == nil {
		cur = m.Ref()
	}
	var models sdk.SessionConfigSelectOptionsUngrouped
	seen := map[string]bool{}
	if s.a.opts.Models != nil {
		if list, err := s.a.opts.Models(ctx); err == nil {
			for _, m := range list {
				if seen[m.Ref] {
					continue
				}
				seen[m.Ref] = true
				name := m.Name
				if name == "" {
					name = m.Ref
				}
				models = append(models, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.Ref), Name: name})
			}
		}
	}
	if cur != "" && !seen[cur] {
		models = append(models, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(cur), Name: cur})
	}
	sort.SliceStable(models, func(i, j int) bool { return models[i].Value < models[j].Value })
	var out []sdk.SessionConfigOption
	if len(models) > 0 {
		o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(cur), sdk.SessionConfigSelectOptions{Ungrouped: &models})
		o.Select.Id, o.Select.Name = configModel, "Model"
		o.Select.Category = sdk.Ptr(sdk.SessionConfigOptionCategoryModel)
		if cur == "" {
			o.Select.CurrentValue = models[0].Value
		}
		out = append(out, o)
	}
	levels := make(sdk.SessionConfigSelectOptionsUngrouped, 0, len(thinkingLevels))
	for _, l := range thinkingLevels {
		levels = append(levels, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(l), Name: string(l)})
	}
	o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(s.h.Thinking()), sdk.SessionConfigSelectOptions{Ungrouped: &levels})
	o.Select.Id, o.Select.Name = configThinking, "Thinking"
	o.Select.Category = sdk.Ptr(sdk.SessionConfigOptionCategoryThoughtLevel)
	return append(out, o)
}

// configKey identifies the current values, to send an update only when
// one changed.
func configKey(opts []sdk.SessionConfigOption) string {
	var b strings.Builder
	for _, o := range opts {
		if o.Select != nil {
			b.WriteString(string(o.Select.Id) + "=" + string(o.Select.CurrentValue) + ";")
		}
	}
	return b.String()
}

// builtinCommands are the commands the adapter runs itself.
var builtinCommands = []sdk.AvailableCommand{
	{Name: "compact", Description: "Compact the conversation now (optional: instructions for the summary)", Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "instructions"}}},
	{Name: "mode", Description: "Switch mode: build, plan or fast", Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "build|plan|fast"}}},
	{Name: "model", Description: "Switch model (provider/id); without an argument, list the models", Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "provider/id"}}},
	{Name: "tree", Description: "Show the current branch of the session"},
	{Name: "new", Description: "Start a new pi session in this chat"},
}

// sendCommands sends available_commands_update: the built-in commands,
// the prompt templates (/name) and the skills (/skill:name).
func (s *sess) sendCommands(ctx context.Context) {
	cmds := append(append([]sdk.AvailableCommand{}, builtinCommands...), goalCommand)
	cmds = append(cmds, rewindCommands...)
	for _, c := range s.h.Commands(ctx) { // templates, skills, prompts of ready MCP servers
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if ac.Description == "" {
			ac.Description = c.Kind + " " + c.Name
		}
		if c.ArgumentHint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.ArgumentHint}}
		}
		cmds = append(cmds, ac)
	}
	s.send(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
}
