package integration

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

func (e *env) exec(args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	cmd := exec.Command(binPath, append([]string{"exec", "--model", "fake/m1"}, args...)...)
	cmd.Dir = e.workspace
	cmd.Env = append(os.Environ(), "HOME="+e.home, "PI_LSP_MODELS="+e.models, "PI_LSP_SESSIONS="+e.sessions)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestExecStreamsAndRecordsASession(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Text: "Checking. ", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "ls", Arguments: `{}`}}},
		{Match: "marker.txt", Text: "There is a marker file."},
	})
	writeFile(t, filepath.Join(e.workspace, "marker.txt"), "x")
	out, errOut, code := e.exec("what files are here?")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, "Checking.") || !strings.Contains(out, "There is a marker file.") {
		t.Fatalf("stdout: %q", out)
	}
	matches, _ := filepath.Glob(filepath.Join(e.sessions, "*", "*.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("sessions recorded: %v", matches)
	}
	data, _ := os.ReadFile(matches[0])
	if n := strings.Count(string(data), `"type":"message"`); n != 4 {
		t.Fatalf("session has %d messages:\n%s", n, data)
	}
}

func TestExecJSONAndRefusesUnapprovedTools(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: `{"path":"out.txt","content":"hi"}`}}},
		{Match: "needs the user's approval", Text: "I could not write it."},
	})
	out, _, code := e.exec("--json", "write out.txt")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if readFile(t, filepath.Join(e.workspace, "out.txt")) != "" {
		t.Fatal("exec without --yolo wrote a file")
	}
	var types []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not one JSON event per line: %q", sc.Text())
		}
		types = append(types, ev.Type)
	}
	if !slices.Contains(types, "agent_start") || !slices.Contains(types, "tool_execution_end") || types[len(types)-1] != "agent_end" {
		t.Fatalf("event stream: %v", types)
	}
}

func TestExecFailsOnProviderError(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Status: 401, Error: "invalid api key", Repeat: true}})
	_, errOut, code := e.exec("hello")
	if code == 0 {
		t.Fatal("exit 0 after a provider error")
	}
	if !strings.Contains(errOut, "401") {
		t.Fatalf("stderr does not say what failed: %q", errOut)
	}
	// No model configured at all: a clear message, non-zero exit.
	e.models = filepath.Join(t.TempDir(), "missing.json")
	_, errOut, code = e.exec("hello")
	if code == 0 || !strings.Contains(errOut, "model") {
		t.Fatalf("no-model run: exit %d, stderr %q", code, errOut)
	}
}
