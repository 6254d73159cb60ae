package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Issue 29 headless: pi-lsp exec starts gopls itself, appends its error to
// the write's result, answers lsp definition from it, and leaves no gopls
// behind.

// goplsPath finds gopls on PATH or in $(go env GOPATH)/bin.
func goplsPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "gopls")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("gopls is not installed (go install golang.org/x/tools/gopls@v0.23.0): the headless language-server test needs it; CI installs it")
	return ""
}

// goplsOf are the gopls processes running in dir.
func goplsOf(dir string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), "gopls") {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
}

func TestExecWithGopls(t *testing.T) {
	gopls := goplsPath(t)
	main := "package main\n\nfunc main() {\n\t_ = helper()\n\tfrobnicate()\n}\n"
	writeArgs, _ := json.Marshal(map[string]string{"path": "main.go", "content": main})
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: string(writeArgs)}}},
		{Match: "undefined: frobnicate", ToolCalls: []llmtest.ToolCall{{ID: "l1", Name: "lsp", Arguments: `{"op":"definition","path":"main.go","line":4,"column":6}`}}},
		{Text: "done"},
	})
	writeFile(t, filepath.Join(e.workspace, "go.mod"), "module example.com/m\n\ngo 1.21\n")
	writeFile(t, filepath.Join(e.workspace, "lib.go"), "package main\n\n// helper is declared in another file.\nfunc helper() int { return 1 }\n")

	cmd := exec.Command(binPath, "exec", "--yolo", "--model", "fake/m1", "add a call")
	cmd.Dir = e.workspace
	cmd.Env = append(os.Environ(), "HOME="+e.home, "PI_LSP_MODELS="+e.models, "PI_LSP_SESSIONS="+e.sessions,
		"PATH="+filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, out)
	}
	reqs := e.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3; output:\n%s", len(reqs), out)
	}
	second := string(reqs[1])
	if !strings.Contains(second, "main.go:5:2: error: undefined: frobnicate") {
		t.Fatalf("the write's result has no gopls error:\n%s\nexec output:\n%s", second, out)
	}
	third := string(reqs[2])
	if !strings.Contains(third, "lib.go:4:6: func helper() int { return 1 }") {
		t.Fatalf("lsp definition did not find helper in lib.go:\n%s", third)
	}
	if left := goplsOf(e.workspace); len(left) > 0 {
		t.Fatalf("gopls outlived the run: %v", left)
	}
}

// A language server that crashes at every file: the run goes on, the
// write's result says diagnostics are unavailable, and no server process
// is left behind.
func TestExecCrashingLanguageServer(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "fakelsp")
	build := exec.Command("go", "build", "-o", fake, "./cmd/fakelsp")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building fakelsp: %v\n%s", err, out)
	}
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: `{"path":"a.fk","content":"ERR: one\n"}`}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "w2", Name: "write", Arguments: `{"path":"b.fk","content":"ERR: two\n"}`}}},
		{Text: "done"},
	})
	settings := filepath.Join(e.home, "settings.json")
	writeFile(t, settings, `{"diagnostics": {"settleMs": 300}, "lsp": {"servers": {"fake": {"command": ["`+fake+`"], "extensions": [".fk"]}}}}`)
	cmd := exec.Command(binPath, "exec", "--yolo", "--model", "fake/m1", "write two files")
	cmd.Dir = e.workspace
	cmd.Env = append(os.Environ(), "HOME="+e.home, "PI_LSP_MODELS="+e.models, "PI_LSP_SESSIONS="+e.sessions,
		"PI_LSP_SETTINGS="+settings, "FAKELSP_MODE=crash")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, out)
	}
	reqs := e.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3; output:\n%s", len(reqs), out)
	}
	if i := strings.Index(string(reqs[1]), "diagnostics unavailable"); i >= 0 {
		t.Logf("%.120s", string(reqs[1])[i:])
	}
	if !strings.Contains(string(reqs[1]), "diagnostics unavailable (fake") {
		t.Fatalf("the first write's result does not say diagnostics are unavailable:\n%s", reqs[1])
	}
	if got := readFile(t, filepath.Join(e.workspace, "b.fk")); got != "ERR: two\n" {
		t.Fatalf("the run did not go on: %q", got)
	}
	ents, _ := os.ReadDir("/proc")
	for _, en := range ents {
		if cmdline, err := os.ReadFile(filepath.Join("/proc", en.Name(), "cmdline")); err == nil && strings.HasPrefix(string(cmdline), fake) {
			t.Fatalf("fakelsp outlived the run: pid %s", en.Name())
		}
	}
}
