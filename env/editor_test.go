package env_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

func TestEditorPrefersBuffers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	var asked []string
	e := &env.Editor{Env: env.NewLocal(dir), Read: func(_ context.Context, p string) (string, bool, error) {
		asked = append(asked, p)
		switch filepath.Base(p) {
		case "a.txt":
			return "unsaved edit", true, nil
		case "b.txt":
			return "", false, errors.New("editor went away")
		}
		return "", false, nil
	}}
	ctx := context.Background()
	for _, c := range []struct{ path, want string }{{"a.txt", "unsaved edit"}, {"b.txt", "b on disk"}} {
		got, err := e.ReadFile(ctx, c.path)
		if err != nil || string(got) != c.want {
			t.Fatalf("%s: %q %v", c.path, got, err)
		}
	}
	if _, err := e.ReadFile(ctx, "missing.txt"); env.CodeOf(err) != env.CodeNotFound {
		t.Fatalf("missing file: %v", err)
	}
	if asked[0] != filepath.Join(dir, "a.txt") {
		t.Fatalf("the editor was asked for %q, not an absolute path", asked[0])
	}
}
