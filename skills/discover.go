package skills

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pi-lsp/pi-lsp/env"
)

// Load discovers skills and prompt templates. Skills come from
// Home/skills, then Cwd/.pi/skills, then each Extra path; templates from
// Home/prompts, then Cwd/.pi/prompts. On a name collision the first wins.
// Every problem is a Diagnostic in the Result; the error is non-nil only
// when ctx ends.
func Load(ctx context.Context, fsys FS, src Sources) (Result, error) {
	l := &loader{ctx: ctx, fs: fsys, byName: map[string]string{}, files: map[string]bool{}}
	if d := src.userSkills(); d != "" {
		l.walkRoot(d, SourceUser, false)
	}
	if d := src.projectSkills(); d != "" {
		l.walkRoot(d, SourceProject, false)
	}
	for _, p := range src.Extra {
		if p != "" {
			l.extra(src.resolve(p))
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("load skills: %w", err)
	}
	var tl templateLoader
	for _, d := range []struct{ dir, source string }{{src.userPrompts(), SourceUser}, {src.projectPrompts(), SourceProject}} {
		if d.dir != "" {
			tl.loadDir(ctx, fsys, d.dir, d.source)
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("load templates: %w", err)
	}
	return Result{
		Skills:      l.skills,
		Templates:   tl.templates,
		Diagnostics: append(l.diags, tl.diags...),
	}, nil
}

type loader struct {
	ctx    context.Context
	fs     FS
	skills []Skill
	diags  []Diagnostic
	byName map[string]string // skill name -> winning path
	files  map[string]bool   // real paths of loaded skill files
}

func (l *loader) diag(path string, sev, format string, a ...any) {
	l.diags = append(l.diags, Diagnostic{Path: path, Message: fmt.Sprintf(format, a...), Severity: sev})
}

// extra loads an explicit path: a directory is walked like a skills
// directory, a .md file is one skill.
func (l *loader) extra(path string) {
	fi, err := l.fs.Stat(l.ctx, path)
	switch {
	case env.CodeOf(err) == env.CodeNotFound:
		l.diag(path, SeverityError, "skill path does not exist")
	case err != nil:
		l.diag(path, SeverityError, "cannot read skill path: %v", err)
	case fi.IsDir:
		l.walkRoot(path, SourcePath, true)
	case strings.HasSuffix(path, ".md"):
		l.loadFile(path, "", SourcePath)
	default:
		l.diag(path, SeverityError, "skill path is not a markdown file")
	}
}

// walkRoot walks one skills directory. A missing default directory is not
// worth a diagnostic; reportMissing is for explicit paths.
func (l *loader) walkRoot(root, source string, reportMissing bool) {
	fi, err := l.fs.Stat(l.ctx, root)
	if err != nil {
		if env.CodeOf(err) != env.CodeNotFound || reportMissing {
			l.diag(root, SeverityError, "cannot read skills directory: %v", err)
		}
		return
	}
	if !fi.IsDir {
		l.diag(root, SeverityError, "skills directory is not a directory")
		return
	}
	real, err := l.fs.RealPath(l.ctx, root)
	if err != nil {
		l.diag(root, SeverityError, "cannot resolve skills directory: %v", err)
		return
	}
	w := walk{l: l, root: root, source: source, visited: map[string]bool{}}
	w.dir(root, real, nil, ignoreRules{}, true)
}

// walk is one skills directory being scanned.
type walk struct {
	l       *loader
	root    string
	source  string
	visited map[string]bool // real paths of directories entered (loop guard)
}

// dir scans one directory. real is its path with links resolved; rel is
// its path from the walk root in components; rootFiles says whether loose
// .md files count as skills (only at the root, as in pi).
func (w *walk) dir(dir, real string, rel []string, parent ignoreRules, rootFiles bool) {
	l := w.l
	if l.ctx.Err() != nil {
		return
	}
	if w.visited[real] {
		return // a symlink back into the walk: entered already
	}
	w.visited[real] = true

	entries, err := l.fs.ReadDir(l.ctx, dir)
	if err != nil {
		l.diag(dir, SeverityWarning, "cannot list directory: %v", err)
		return
	}
	rules := parent.with(l.ctx, l.fs, dir, rel, entries)

	// A directory with SKILL.md is one skill, and the walk stops there.
	for _, e := range entries {
		if e.Name != "SKILL.md" {
			continue
		}
		path := filepath.Join(dir, e.Name)
		isDir, ok := w.kind(path, e)
		if !ok || isDir || rules.ignored(appendRel(rel, e.Name), false) {
			break
		}
		l.loadFile(path, w.childReal(real, path, e), w.source)
		return
	}

	for _, e := range entries {
		if strings.HasPrefix(e.Name, ".") || e.Name == "node_modules" {
			continue
		}
		path := filepath.Join(dir, e.Name)
		isDir, ok := w.kind(path, e)
		if !ok {
			continue
		}
		childRel := appendRel(rel, e.Name)
		if rules.ignored(childRel, isDir) {
			continue
		}
		switch {
		case isDir:
			if r := w.childReal(real, path, e); r != "" {
				w.dir(path, r, childRel, rules, false)
			}
		case rootFiles && strings.HasSuffix(e.Name, ".md"):
			l.loadFile(path, w.childReal(real, path, e), w.source)
		}
	}
}

// childReal is the real path of entry e of the directory whose real path
// is parentReal. Only a symlink needs resolving (that is what keeps a
// walk cheap: no per-entry realpath); "" when it cannot be resolved.
func (w *walk) childReal(parentReal, path string, e env.FileInfo) string {
	if !e.IsSymlink {
		return filepath.Join(parentReal, e.Name)
	}
	real, err := w.l.fs.RealPath(w.l.ctx, path)
	if err != nil {
		w.l.diag(path, SeverityWarning, "cannot resolve symlink: %v", err)
		return ""
	}
	return real
}

// kind says whether an entry is a directory, following a symlink. ok is
// false for a broken link (reported) or anything unreadable.
func (w *walk) kind(path string, e env.FileInfo) (isDir, ok bool) {
	if !e.IsSymlink {
		return e.IsDir, true
	}
	fi, err := w.l.fs.Stat(w.l.ctx, path)
	if err != nil {
		w.l.diag(path, SeverityWarning, "broken symlink skipped: %v", err)
		return false, false
	}
	return fi.IsDir, true
}

func appendRel(rel []string, name string) []string {
	out := make([]string, len(rel)+1)
	copy(out, rel)
	out[len(rel)] = name
	return out
}

// loadFile loads one skill file and adds it unless the same file (through
// a symlink) is loaded already or its name is taken. real is the file's
// resolved path ("" = resolve it here).
func (l *loader) loadFile(path, real, source string) {
	if real == "" {
		r, err := l.fs.RealPath(l.ctx, path)
		if err != nil {
			r = path
		}
		real = r
	}
	if l.files[real] {
		return // the same file reached twice: silently once, as pi
	}
	s, diags := loadSkillFile(l.ctx, l.fs, path, source)
	l.diags = append(l.diags, diags...)
	if s == nil {
		return
	}
	if winner, taken := l.byName[s.Name]; taken {
		l.diag(path, SeverityWarning, "name %q collision: keeping %s, ignoring this one", s.Name, winner)
		return
	}
	l.files[real] = true
	l.byName[s.Name] = path
	l.skills = append(l.skills, *s)
}
