package skills

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Limits of the Agent Skills specification.
const (
	MaxNameLength          = 64
	MaxDescriptionLength   = 1024
	MaxCompatibilityLength = 500
)

var nameRe = regexp.MustCompile(`^[a-z0-9-]+$`)

// validateName returns the problems of a skill name, as pi words them.
// expected is the parent directory (for SKILL.md) or the file's stem.
func validateName(name, expected, what string) []string {
	var errs []string
	if name != expected {
		errs = append(errs, fmt.Sprintf("name %q does not match %s %q", name, what, expected))
	}
	if n := len([]rune(name)); n > MaxNameLength {
		errs = append(errs, fmt.Sprintf("name exceeds %d characters (%d)", MaxNameLength, n))
	}
	if !nameRe.MatchString(name) {
		errs = append(errs, "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		errs = append(errs, "name must not start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		errs = append(errs, "name must not contain consecutive hyphens")
	}
	return errs
}

// loadSkillFile reads and validates one skill file. Like pi, name problems
// are warnings and the skill still loads; a missing description, an
// unreadable file or broken frontmatter leave it out (skill is nil).
func loadSkillFile(ctx context.Context, fsys FS, path, source string) (*Skill, []Diagnostic) {
	var diags []Diagnostic
	warn := func(line int, format string, a ...any) {
		diags = append(diags, Diagnostic{Path: path, Line: line, Message: fmt.Sprintf(format, a...), Severity: SeverityWarning})
	}
	drop := func(line int, format string, a ...any) (*Skill, []Diagnostic) {
		diags = append(diags, Diagnostic{Path: path, Line: line, Message: fmt.Sprintf(format, a...), Severity: SeverityError})
		return nil, diags
	}

	data, err := fsys.ReadFile(ctx, path)
	if err != nil {
		return drop(0, "cannot read skill: %v", err)
	}
	fm, problem, line := parseFrontmatter(string(data))
	if problem != "" {
		return drop(line, "%s", problem)
	}
	for _, w := range fm.warnings {
		warn(w.line, "%s", w.message)
	}

	dir := filepath.Dir(path)
	expected, what := filepath.Base(dir), "parent directory"
	if filepath.Base(path) != "SKILL.md" {
		expected, what = strings.TrimSuffix(filepath.Base(path), ".md"), "file name"
	}

	name, present, ok := fm.str("name")
	if !ok {
		warn(fm.line("name"), "name must be a string; using %q", expected)
	}
	if !present || !ok || name == "" {
		name = expected
	}
	for _, e := range validateName(name, expected, what) {
		warn(fm.line("name"), "%s", e)
	}

	desc, _, ok := fm.str("description")
	if !ok {
		return drop(fm.line("description"), "description must be a string")
	}
	if strings.TrimSpace(desc) == "" {
		return drop(fm.line("description"), "description is required")
	}
	if n := len([]rune(desc)); n > MaxDescriptionLength {
		warn(fm.line("description"), "description exceeds %d characters (%d)", MaxDescriptionLength, n)
	}

	s := &Skill{Name: name, Description: desc, Path: path, BaseDir: dir, Source: source}
	if v, present, ok := fm.boolean("disable-model-invocation"); !ok {
		warn(fm.line("disable-model-invocation"), "disable-model-invocation must be true or false")
	} else if present {
		s.DisableModelInvocation = v
	}
	if v, _, ok := fm.str("license"); ok {
		s.License = v
	} else {
		warn(fm.line("license"), "license must be a string")
	}
	if v, _, ok := fm.str("compatibility"); !ok {
		warn(fm.line("compatibility"), "compatibility must be a string")
	} else {
		s.Compatibility = v
		if n := len([]rune(v)); n > MaxCompatibilityLength {
			warn(fm.line("compatibility"), "compatibility exceeds %d characters (%d)", MaxCompatibilityLength, n)
		}
	}
	if v, _, ok := fm.mapping("metadata"); ok {
		s.Metadata = v
	} else {
		warn(fm.line("metadata"), "metadata must be a mapping")
	}
	if v, _, ok := fm.words("allowed-tools"); ok {
		s.AllowedTools = v
	} else {
		warn(fm.line("allowed-tools"), "allowed-tools must be a space-separated string or a list of strings")
	}
	return s, diags
}
