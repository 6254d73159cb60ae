package pitest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.Contains(string(b), "module github.com/pi-lsp/pi-lsp") {
		t.Fatalf("root %s: %v", root, err)
	}
	if _, err := os.Stat(filepath.Join(root, "test", "pi", "package.json")); err != nil {
		t.Errorf("test/pi/package.json: %v", err)
	}
}

func TestEnv(t *testing.T) {
	t.Setenv("PI_CODING_AGENT_DIR", "/elsewhere")
	env := Env(t, "http://127.0.0.1:1/v1")
	var home string
	for _, kv := range env {
		if strings.HasPrefix(kv, "PI_CODING_AGENT_DIR=") {
			t.Errorf("pi variable leaked: %s", kv)
		}
		if h, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = h
		}
	}
	b, err := os.ReadFile(filepath.Join(home, ".pi", "agent", "models.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Providers map[string]struct {
			BaseURL string `json:"baseUrl"`
			API     string `json:"api"`
		}
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Providers["fake"].BaseURL != "http://127.0.0.1:1/v1" || m.Providers["fake"].API != "openai-completions" {
		t.Errorf("models.json %s (%v)", b, err)
	}
}

func TestPiVersion(t *testing.T) {
	bin := Bin(t) // skips (or fails under CI) without pi
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", bin, err, out)
	}
	if strings.TrimSpace(string(out)) != "0.73.1" {
		t.Errorf("pi version %q, the interop tests pin 0.73.1", out)
	}
}
