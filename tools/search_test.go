package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

// searchTree is a git work tree with nested ignore files.
func searchTree(t *testing.T) *fixture {
	f := newFixture(t)
	f.write(map[string]string{
		".git/HEAD":               "ref: refs/heads/main\n",
		".git/info/exclude":       "excluded.txt\n",
		".gitignore":              "# comment\n*.log\nbuild/\n/rootonly.txt\n",
		"a.go":                    "package a\nfunc Hello() {}\n",
		"rootonly.txt":            "Hello",
		"excluded.txt":            "Hello",
		"debug.log":               "Hello",
		"build/out.go":            "Hello",
		"node_modules/x/index.js": "Hello",
		"sub/.gitignore":          "!keep.log\nsecret.txt\n",
		"sub/keep.log":            "Hello",
		"sub/secret.txt":          "Hello",
		"sub/rootonly.txt":        "Hello",
		"sub/deep/b.go":           "hello world\nHELLO\nsay hello.\n",
		"sub/deep/.ignore":        "ignored.md\n",
		"sub/deep/ignored.md":     "Hello",
		".hidden/h.txt":           "Hello",
		"bin.dat":                 "Hello\x00",
	})
	return f
}

func TestGrep(t *testing.T) {
	f := searchTree(t)
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"respects nested ignores", map[string]any{"pattern": "Hello"},
			".hidden/h.txt:1: Hello\na.go:2: func Hello() {}\nsub/keep.log:1: Hello\nsub/rootonly.txt:1: Hello", false},
		{"ignore case", map[string]any{"pattern": "hello", "ignoreCase": true, "path": "sub/deep"},
			"b.go:1: hello world\nb.go:2: HELLO\nb.go:3: say hello.", false},
		{"regex", map[string]any{"pattern": "^H.LLO$", "path": "sub"}, "deep/b.go:2: HELLO", false},
		{"literal", map[string]any{"pattern": "hello.", "literal": true, "path": "sub/deep"}, "b.go:3: say hello.", false},
		{"not literal", map[string]any{"pattern": "hello.", "path": "sub/deep"}, "b.go:1: hello world\nb.go:3: say hello.", false},
		{"single file shows its name", map[string]any{"pattern": "HELLO", "path": "sub/deep/b.go"}, "b.go:2: HELLO", false},
		{"explicit ignored file is searched", map[string]any{"pattern": "Hello", "path": "debug.log"}, "debug.log:1: Hello", false},
		{"glob by name", map[string]any{"pattern": "Hello", "glob": "*.go"}, "a.go:2: func Hello() {}", false},
		{"glob with path", map[string]any{"pattern": "ello", "glob": "sub/**/*.go"}, "sub/deep/b.go:1: hello world\nsub/deep/b.go:3: say hello.", false},
		{"glob braces", map[string]any{"pattern": "Hello", "glob": "*.{log,txt}"}, ".hidden/h.txt:1: Hello\nsub/keep.log:1: Hello\nsub/rootonly.txt:1: Hello", false},
		{"negated glob", map[string]any{"pattern": "Hello", "glob": "!*.txt"}, "a.go:2: func Hello() {}\nsub/keep.log:1: Hello", false},
		{"context", map[string]any{"pattern": "HELLO", "path": "sub/deep", "context": 1}, "b.go-1- hello world\nb.go:2: HELLO\nb.go-3- say hello.", false},
		{"limit", map[string]any{"pattern": "Hello", "limit": 2},
			".hidden/h.txt:1: Hello\na.go:2: func Hello() {}\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]", false},
		{"no matches", map[string]any{"pattern": "nothing-here"}, "No matches found", false},
		{"bad regex", map[string]any{"pattern": "a("}, `Invalid regex "a("`, true},
		{"missing path", map[string]any{"pattern": "x", "path": "nope"}, "Path not found: " + filepath.Join(f.dir, "nope"), true},
		{"no pattern", map[string]any{}, "grep: pattern is required", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.run("grep", tt.args)
			if r.IsError != tt.isError {
				t.Fatalf("isError=%v: %s", r.IsError, r.Text())
			}
			if tt.isError && !strings.Contains(r.Text(), tt.want) || !tt.isError && r.Text() != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", r.Text(), tt.want)
			}
		})
	}
}

func TestGrepLongLinesAndBytes(t *testing.T) {
	f := newFixture(t)
	var many strings.Builder
	for i := 0; i < 300; i++ {
		many.WriteString("match " + strings.Repeat("z", 400) + "\n")
	}
	f.write(map[string]string{"long.txt": "match " + strings.Repeat("x", 600) + "\n", "many.txt": many.String()})
	r := f.run("grep", map[string]any{"pattern": "match", "path": "long.txt"})
	if !strings.HasSuffix(ok(t, r), "... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]") || details(t, r)["linesTruncated"] != true {
		t.Fatalf("got %q", tail(r.Text(), 120))
	}
	r = f.run("grep", map[string]any{"pattern": "match", "path": "many.txt", "limit": 1000})
	text := ok(t, r)
	if !strings.HasSuffix(text, "[50.0KB limit reached]") || details(t, r)["truncation"] == nil {
		t.Fatalf("got %q", tail(text, 120))
	}
}

func TestGrepAborted(t *testing.T) {
	f := searchTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fails(t, f.runCtx(ctx, "grep", map[string]any{"pattern": "Hello"}), "Operation aborted")
}

func TestFind(t *testing.T) {
	f := searchTree(t)
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"by name", map[string]any{"pattern": "*.go"}, "a.go\nsub/deep/b.go", false},
		{"re-included by nested ignore", map[string]any{"pattern": "*.log"}, "sub/keep.log", false},
		{"anchored root pattern", map[string]any{"pattern": "rootonly.txt"}, "sub/rootonly.txt", false},
		{"path pattern at any depth", map[string]any{"pattern": "deep/*.go"}, "sub/deep/b.go", false},
		{"doublestar", map[string]any{"pattern": "**/*.txt"}, ".hidden/h.txt\nsub/rootonly.txt", false},
		{"directories get a slash", map[string]any{"pattern": "de*"}, "sub/deep/", false},
		{"under a path", map[string]any{"pattern": "*", "path": "sub"}, ".gitignore\ndeep/\ndeep/.ignore\ndeep/b.go\nkeep.log\nrootonly.txt", false},
		{"braces", map[string]any{"pattern": "*.{go,log}"}, "a.go\nsub/deep/b.go\nsub/keep.log", false},
		{"absolute", map[string]any{"pattern": filepath.Join(f.dir, "sub", "*.log")}, "sub/keep.log", false},
		{"limit", map[string]any{"pattern": "*", "limit": 2}, ".gitignore\n.hidden/\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]", false},
		{"nothing", map[string]any{"pattern": "*.rs"}, "No files found matching pattern", false},
		{"bad glob", map[string]any{"pattern": "[x"}, "invalid glob", true},
		{"not a dir", map[string]any{"pattern": "*", "path": "a.go"}, "Not a directory: ", true},
		{"missing", map[string]any{"pattern": "*", "path": "nope"}, "Path not found: ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.run("find", tt.args)
			if r.IsError != tt.isError {
				t.Fatalf("isError=%v: %s", r.IsError, r.Text())
			}
			if tt.isError && !strings.Contains(r.Text(), tt.want) || !tt.isError && r.Text() != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", r.Text(), tt.want)
			}
		})
	}
}

// TestIgnoreFromParentsOfSearchRoot: searching a subdirectory of a work tree
// still applies the ignore files above it.
func TestIgnoreFromParentsOfSearchRoot(t *testing.T) {
	f := searchTree(t)
	if got := ok(t, f.run("find", map[string]any{"pattern": "*", "path": "sub/deep"})); got != ".ignore\nb.go" {
		t.Fatalf("got %q", got)
	}
	if got := ok(t, f.run("find", map[string]any{"pattern": "*.log", "path": "sub"})); got != "keep.log" {
		t.Fatalf("got %q", got)
	}
}

// TestIgnoreWithoutGit: .gitignore applies outside a git work tree too.
func TestIgnoreWithoutGit(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{".gitignore": "out/\n", "out/x.txt": "", "a/.gitignore": "*.tmp\n", "a/y.tmp": "", "a/z.txt": "", "y.tmp": ""})
	if got := ok(t, f.run("find", map[string]any{"pattern": "*.*"})); got != ".gitignore\na/.gitignore\na/z.txt\ny.tmp" {
		t.Fatalf("got %q", got)
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "a/b.go", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"src/**/*.spec.ts", "src/x.spec.ts", true},
		{"src/**/*.spec.ts", "src/a/b/x.spec.ts", true},
		{"src/**/*.spec.ts", "lib/x.spec.ts", false},
		{"src/**", "src/a/b", true},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/d/c", false},
		{"*.{ts,tsx}", "x.tsx", true},
		{"{a,b{c,d}}.txt", "bd.txt", true},
		{"{a,b{c,d}}.txt", "b.txt", false},
		{"x?.txt", "x1.txt", true},
		{"[ab].txt", "c.txt", false},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.match(tt.path); got != tt.want {
			t.Errorf("%q ~ %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestLs(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{"b.txt": "", "A.txt": "", ".env": "", "dir/x": "", "Zed/y": "", "empty/.keep": ""})
	if err := os.Symlink("dir", filepath.Join(f.dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing", filepath.Join(f.dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(f.dir, "empty/.keep")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"sorted, dirs marked, dotfiles", map[string]any{}, ".env\nA.txt\nb.txt\ndir/\nempty/\nlink/\nZed/", false},
		{"subdir", map[string]any{"path": "dir"}, "x", false},
		{"limit", map[string]any{"limit": 2}, ".env\nA.txt\n\n[2 entries limit reached. Use limit=4 for more]", false},
		{"empty", map[string]any{"path": "empty"}, "(empty directory)", false},
		{"missing", map[string]any{"path": "nope"}, "Path not found: " + filepath.Join(f.dir, "nope"), true},
		{"file", map[string]any{"path": "b.txt"}, "Not a directory: " + filepath.Join(f.dir, "b.txt"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.run("ls", tt.args)
			if r.IsError != tt.isError || r.Text() != tt.want {
				t.Fatalf("got isError=%v\n%s\nwant\n%s", r.IsError, r.Text(), tt.want)
			}
		})
	}
}

// grep and find read the disk, as rg and fd do: under an editor overlay a
// search costs no editor request per file or per ignore file.
func TestSearchReadsTheDiskUnderAnEditor(t *testing.T) {
	f := searchTree(t)
	asked := 0
	ed := &env.Editor{Env: f.env, Read: func(context.Context, string) (string, bool, error) {
		asked++
		return "unsaved", true, nil
	}}
	for _, c := range []struct {
		tool string
		args string
		want string
	}{
		{"grep", `{"pattern":"package"}`, "a.go:1: package a"},
		{"find", `{"pattern":"*.go"}`, "a.go\nsub/deep/b.go"},
	} {
		r := f.tools[c.tool].Execute(context.Background(), Call{ID: "c", Name: c.tool, Args: json.RawMessage(c.args)}, Exec{Env: ed})
		if got := ok(t, r); !strings.Contains(got, c.want) {
			t.Fatalf("%s: %q, want %q in it", c.tool, got, c.want)
		}
	}
	if asked != 0 {
		t.Fatalf("a search asked the editor %d times", asked)
	}
}
