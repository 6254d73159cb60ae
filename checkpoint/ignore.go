package checkpoint

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Ignore rules: a checkpoint leaves out .git/, and what .gitignore,
// .ignore, .git/info/exclude and the global git excludes ignore. Patterns
// of nested ignore files are added as the walk enters their folders
// (domain = that folder), as git reads them; the last matching pattern
// decides.

// basePatterns loads the patterns that apply to the whole workspace: the
// system and global excludes (core.excludesfile, else
// $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore) and
// .git/info/exclude.
func basePatterns(root string) []gitignore.Pattern {
	ps := readPatternFile(excludesFile("/etc/gitconfig"), nil)
	global := ""
	if home, err := os.UserHomeDir(); err == nil {
		global = excludesFile(filepath.Join(home, ".gitconfig"))
	}
	if global == "" {
		global = defaultGlobalExcludes()
	}
	ps = append(ps, readPatternFile(global, nil)...)
	return append(ps, readPatternFile(filepath.Join(root, ".git", "info", "exclude"), nil)...)
}

// excludesFile reads core.excludesfile from a git config file ("" when
// unset). gitignore.LoadGlobalPatterns does the same but wants a billy
// filesystem, whose osfs pulls another module in.
func excludesFile(gitconfig string) string {
	data, err := os.ReadFile(gitconfig)
	if err != nil {
		return ""
	}
	raw := config.New()
	if err := config.NewDecoder(bytes.NewReader(data)).Decode(raw); err != nil {
		return ""
	}
	p := raw.Section("core").Options.Get("excludesfile")
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	return p
}

func defaultGlobalExcludes() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "ignore")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "git", "ignore")
}

// readPatternFile parses one ignore file whose patterns apply under domain
// (nil when the file is missing or unreadable).
func readPatternFile(path string, domain []string) []gitignore.Pattern {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// ignoredBy reports whether the path (parts under the root) is ignored by
// patterns; the last matching pattern decides, as in git. .git is always
// left out (the repository's own, and nested repositories').
func ignoredBy(patterns []gitignore.Pattern, parts []string, isDir bool) bool {
	if len(parts) > 0 && parts[len(parts)-1] == ".git" {
		return true
	}
	for i := len(patterns) - 1; i >= 0; i-- {
		switch patterns[i].Match(parts, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}
