package harness

import (
	"context"
	"strings"

	"github.com/pi-lsp/pi-lsp/skills"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Skills returns the loaded skills and templates, reloading them when a
// watched file changed since the last turn.
func (h *Harness) Skills(ctx context.Context) skills.Result {
	h.mu.Lock()
	res, dirty := h.skillsRes, h.skillsDirty
	h.mu.Unlock()
	if res != nil && !dirty {
		return *res
	}
	r, err := skills.Load(ctx, h.cfg.Env, h.skillSources())
	if err != nil {
		h.log.Warn("load skills", "err", err)
	}
	h.mu.Lock()
	h.skillsRes, h.skillsDirty = &r, false
	h.mu.Unlock()
	return r
}

func (h *Harness) skillSources() skills.Sources {
	return skills.Sources{Home: h.cfg.AgentDir, Cwd: h.Cwd(), Extra: h.cfg.SkillPaths}
}

// WatchSkills watches the skill and prompt directories until ctx ends. A
// change is picked up at the next turn and announced with skills_changed.
func (h *Harness) WatchSkills(ctx context.Context) error {
	stop, err := skills.Watch(ctx, h.skillSources().WatchDirs(), func() {
		h.mu.Lock()
		h.skillsDirty = true
		h.ctxFiles = contextFilesCache{}
		h.mu.Unlock()
		h.emit(Event{Type: EvSkills})
	})
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		_ = stop()
	}()
	return nil
}

// expandInput expands /skill:name and /template inputs.
func (h *Harness) expandInput(ctx context.Context, text string) (string, error) {
	if !strings.HasPrefix(text, "/") {
		return text, nil
	}
	return skills.ExpandInput(ctx, text, h.Skills(ctx), h.cfg.Env)
}

// systemPrompt is rebuilt on every turn from the mode, the active tools, the
// cwd, the date, the context files and the skills.
func (h *Harness) systemPrompt(ctx context.Context, active []tools.Tool) string {
	h.mu.Lock()
	mode := h.modeByID(h.mode)
	h.mu.Unlock()
	in := skills.PromptInput{Cwd: h.Cwd(), Date: h.cfg.Now()}
	if mode != nil {
		in.Mode = mode.ID
		in.ModePrompt = mode.Prompt
	}
	for _, t := range active {
		d := t.Definition()
		in.Tools = append(in.Tools, skills.ToolInfo{Name: d.Name, Description: d.Description})
	}
	in.ContextFiles = h.contextFiles(ctx)
	in.Skills = h.Skills(ctx).Skills
	in.Agents = h.agentsForPrompt(ctx, active)
	return skills.BuildSystemPrompt(in)
}
