package harness_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
)

func TestLoadModes(t *testing.T) {
	dir := t.TempDir()
	if m, err := harness.LoadModes(filepath.Join(dir, "none.json")); err != nil || len(m) != 3 {
		t.Fatalf("missing file: %v %v", m, err)
	}
	path := filepath.Join(dir, "modes.json")
	if err := os.WriteFile(path, []byte(`[{"id":"plan","defaultModel":"fake/m2"},{"id":"review","name":"Review","color":"#9c27b0","readOnly":true,"prompt":"Review the diff."}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	modes, err := harness.LoadModes(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(modes) != 4 || modes[1].ID != "plan" || modes[1].DefaultModel != "fake/m2" || !modes[1].ReadOnly || modes[1].Name != "Plan" {
		t.Fatalf("merged modes: %+v", modes)
	}
	if r := modes[3]; r.ID != "review" || !r.ReadOnly || r.Prompt != "Review the diff." {
		t.Fatalf("added mode: %+v", r)
	}
	for _, bad := range []string{`{`, `[{"name":"no id"}]`} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := harness.LoadModes(path); err == nil {
			t.Fatalf("%s: no error", bad)
		}
	}
}
