package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildBinary builds fakellm into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fakellm")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestBinaryServesScriptAndExitsOnStdinClose(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	if err := os.WriteFile(script, []byte(`[{"text":"from file"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	modelsJSON := filepath.Join(dir, "models.json")
	cmd := exec.Command(bin, "--script", script, "--models-json", modelsJSON, "--context-window", "4096")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "FAKELLM_URL=")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}

	var models struct {
		Providers map[string]struct {
			BaseURL string `json:"baseUrl"`
			Models  []struct {
				ContextWindow int `json:"contextWindow"`
			}
		}
	}
	data, err := os.ReadFile(modelsJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &models); err != nil {
		t.Fatal(err)
	}
	fake := models.Providers["fake"]
	if fake.BaseURL != url+"/v1" || fake.Models[0].ContextWindow != 4096 {
		t.Fatalf("models.json %s", data)
	}

	resp, err := http.Post(url+"/script", "application/json", strings.NewReader(`[{"text":"from post"}]`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, want := range []string{"from file", "from post"} {
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true,"model":"fake-model"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), `"content":"`+strings.Fields(want)[0]) || !strings.Contains(string(body), "[DONE]") {
			t.Fatalf("stream for %q: %s", want, body)
		}
	}
	r, err := http.Get(url + "/requests")
	if err != nil {
		t.Fatal(err)
	}
	var reqs []map[string]any
	err = json.NewDecoder(r.Body).Decode(&reqs)
	r.Body.Close()
	if err != nil || len(reqs) != 2 || reqs[0]["model"] != "fake-model" {
		t.Fatalf("requests %v %v", reqs, err)
	}

	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fakellm did not exit after stdin closed")
	}
}

func TestBadScriptFails(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	if err := os.WriteFile(script, []byte(`[{"text": 1}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--script", script},
		{"--script", filepath.Join(dir, "missing.json")},
		{"--addr", "not-an-address"},
		{"extra"},
	} {
		var out strings.Builder
		if err := run(args, strings.NewReader(""), &out); err == nil {
			t.Fatalf("run %q succeeded", args)
		}
		if out.Len() != 0 {
			t.Fatalf("run %q printed %q", args, out.String())
		}
	}
}
