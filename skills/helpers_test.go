package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree describes files to create: path (slash-separated, relative) ->
// content. A value starting with "-> " makes a symlink to the rest.
type tree map[string]string

func (tr tree) write(t testing.TB, root string) {
	t.Helper()
	for p, content := range tr {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "-> "); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// skillMD is a minimal valid skill file.
func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n# " + name + "\n\nBody of " + name + ".\n"
}
