package skills

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pi-lsp/pi-lsp/env"
)

// templateDescriptionMax is how much of a template's first line pi shows
// when it has no description.
const templateDescriptionMax = 60

type templateLoader struct {
	templates []Template
	diags     []Diagnostic
	byName    map[string]string
}

// loadDir loads the direct .md children of dir (not recursive, as pi).
func (tl *templateLoader) loadDir(ctx context.Context, fsys FS, dir, source string) {
	entries, err := fsys.ReadDir(ctx, dir)
	if err != nil {
		if env.CodeOf(err) != env.CodeNotFound {
			tl.diag(dir, 0, SeverityError, "cannot list prompts directory: %v", err)
		}
		return
	}
	for _, e := range entries {
		if ctx.Err() != nil {
			return
		}
		if !strings.HasSuffix(e.Name, ".md") {
			continue
		}
		path := filepath.Join(dir, e.Name)
		isDir := e.IsDir
		if e.IsSymlink {
			fi, err := fsys.Stat(ctx, path)
			if err != nil {
				tl.diag(path, 0, SeverityWarning, "broken symlink skipped: %v", err)
				continue
			}
			isDir = fi.IsDir
		}
		if isDir {
			continue
		}
		tl.loadFile(ctx, fsys, path, source)
	}
}

func (tl *templateLoader) diag(path string, line int, sev, format string, a ...any) {
	tl.diags = append(tl.diags, Diagnostic{Path: path, Line: line, Message: fmt.Sprintf(format, a...), Severity: sev})
}

func (tl *templateLoader) loadFile(ctx context.Context, fsys FS, path, source string) {
	data, err := fsys.ReadFile(ctx, path)
	if err != nil {
		tl.diag(path, 0, SeverityError, "cannot read template: %v", err)
		return
	}
	fm, problem, line := parseFrontmatter(string(data))
	if problem != "" {
		tl.diag(path, line, SeverityError, "%s", problem)
		return
	}
	for _, w := range fm.warnings {
		tl.diag(path, w.line, SeverityWarning, "%s", w.message)
	}
	t := Template{
		Name:   strings.TrimSuffix(filepath.Base(path), ".md"),
		Path:   path,
		Source: source,
		Body:   fm.body,
	}
	if v, _, ok := fm.str("description"); ok {
		t.Description = v
	} else {
		tl.diag(path, fm.line("description"), SeverityWarning, "description must be a string")
	}
	if t.Description == "" {
		t.Description = firstLine(fm.body)
	}
	if v, _, ok := fm.str("argument-hint"); ok {
		t.ArgumentHint = v
	} else {
		tl.diag(path, fm.line("argument-hint"), SeverityWarning, "argument-hint must be a string")
	}
	if tl.byName == nil {
		tl.byName = map[string]string{}
	}
	if winner, taken := tl.byName[t.Name]; taken {
		tl.diag(path, 0, SeverityWarning, "template %q collision: keeping %s, ignoring this one", t.Name, winner)
		return
	}
	tl.byName[t.Name] = path
	tl.templates = append(tl.templates, t)
}

// firstLine is pi's fallback description: the first non-blank line, cut
// at 60 characters with "..." after.
func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		r := []rune(l)
		if len(r) > templateDescriptionMax {
			return string(r[:templateDescriptionMax]) + "..."
		}
		return l
	}
	return ""
}
