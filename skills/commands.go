package skills

// Command kinds.
const (
	CommandTemplate = "template"
	CommandSkill    = "skill"
)

// Command is one slash command an editor can offer for completion: a
// template (/name) or a skill (/skill:name).
type Command struct {
	// Name is what follows the slash: "review" or "skill:pdf-tools".
	Name         string `json:"name"`
	Description  string `json:"description"`
	Kind         string `json:"kind"`
	Source       string `json:"source"`
	Path         string `json:"path"`
	ArgumentHint string `json:"argumentHint,omitempty"`
}

// Commands lists the slash commands of r: templates, then skills (those
// hidden from the model included: /skill:name is how a user invokes them).
func (r Result) Commands() []Command {
	out := make([]Command, 0, len(r.Templates)+len(r.Skills))
	for _, t := range r.Templates {
		out = append(out, Command{Name: t.Name, Description: t.Description, Kind: CommandTemplate,
			Source: t.Source, Path: t.Path, ArgumentHint: t.ArgumentHint})
	}
	for _, s := range r.Skills {
		out = append(out, Command{Name: SkillPrefix[1:] + s.Name, Description: s.Description, Kind: CommandSkill,
			Source: s.Source, Path: s.Path})
	}
	return out
}
