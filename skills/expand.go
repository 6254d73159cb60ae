package skills

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SkillPrefix starts an explicit skill invocation: /skill:name extra text.
const SkillPrefix = "/skill:"

// ExpandInput expands a user message the way pi does before it reaches the
// model (prompt, steer and follow-up alike):
//
//   - "/skill:name extra" becomes the skill block (see SkillBlock) with
//     the skill's body, then a blank line and the extra text;
//   - "/template args" becomes the template's body with args substituted;
//   - anything else, including an unknown /name, comes back unchanged.
//
// The command name ends at the first whitespace (pi: the first space, so a
// newline right after the name works here and not there). An error means
// the skill's file could not be read; text comes back unchanged with it.
func ExpandInput(ctx context.Context, text string, r Result, fsys FS) (string, error) {
	if !strings.HasPrefix(text, "/") {
		return text, nil
	}
	name, rest := splitCommand(text[1:])
	if skillName, ok := strings.CutPrefix(name, SkillPrefix[1:]); ok {
		s, found := r.Skill(skillName)
		if !found {
			return text, nil
		}
		block, err := SkillBlock(ctx, fsys, s)
		if err != nil {
			return text, err
		}
		if extra := strings.TrimSpace(rest); extra != "" {
			return block + "\n\n" + extra, nil
		}
		return block, nil
	}
	if t, found := r.Template(name); found {
		return SubstituteArgs(t.Body, ParseArgs(rest)), nil
	}
	return text, nil
}

// splitCommand cuts "name rest" at the first whitespace; rest keeps
// everything after that one separator.
func splitCommand(s string) (name, rest string) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	return s[:i], s[i+size:]
}

// SkillBlock reads a skill's file and wraps its body (frontmatter removed,
// trimmed) in pi's invocation block:
//
//	<skill name="NAME" location="PATH">
//	References are relative to BASEDIR.
//
//	BODY
//	</skill>
func SkillBlock(ctx context.Context, fsys FS, s Skill) (string, error) {
	data, err := fsys.ReadFile(ctx, s.Path)
	if err != nil {
		return "", fmt.Errorf("expand skill %q: %w", s.Name, err)
	}
	_, body, _, _ := splitFrontmatter(string(data))
	// Attribute values go in raw, as pi writes them (no escaping), so
	// pi's own parser of this block recognises it.
	return `<skill name="` + s.Name + `" location="` + s.Path + `">` + "\n" +
		"References are relative to " + s.BaseDir + ".\n\n" +
		strings.TrimSpace(body) + "\n</skill>", nil
}
