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

func runJobTool(t *testing.T, f *fixture, jobs *env.Jobs, name string, args any) Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return f.tools[name].Execute(context.Background(), Call{ID: "c", Name: name, Args: b}, Exec{Env: f.env, Jobs: jobs})
}

// bash with background returns at once; job_output reads what is new and
// waits for the end; job_kill ends a job; unknown ids name the known jobs.
func TestBackgroundJobTools(t *testing.T) {
	f := newFixture(t)
	jobs := env.NewJobs(env.JobsOptions{Dir: t.TempDir()})
	defer jobs.Close()
	gate := filepath.Join(f.dir, "gate")
	res := runJobTool(t, f, jobs, "bash", map[string]any{"command": "echo early; while [ ! -e gate ]; do sleep 0.05; done; echo late; exit 2", "background": true})
	if res.IsError || !strings.HasPrefix(res.Text(), "started job-1 (pid ") || !strings.HasSuffix(res.Text(), "): echo early; while [ ! -e gate ]; do sleep 0.05; done; echo late; exit 2") {
		t.Fatalf("start: %+v", res)
	}
	jb, err := jobs.Get("job-1")
	if err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(jb.Tail(0), "early") {
		jb.WaitChange(context.Background())
	}
	first := runJobTool(t, f, jobs, "job_output", map[string]any{"jobId": "job-1"})
	if first.IsError || !strings.HasPrefix(first.Text(), "job-1: running\n") || !strings.HasSuffix(first.Text(), "\nearly") {
		t.Fatalf("first read: %q", first.Text())
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	second := runJobTool(t, f, jobs, "job_output", map[string]any{"jobId": "job-1", "waitSeconds": 60})
	if second.IsError || !strings.HasPrefix(second.Text(), "job-1: exited (exit code 2)\n") || !strings.HasSuffix(second.Text(), "\n\nlate") {
		t.Fatalf("second read: %q", second.Text())
	}
	var d jobDetails
	if err := json.Unmarshal(second.Details, &d); err != nil || d.Status != "exited" || d.ExitCode == nil || *d.ExitCode != 2 {
		t.Fatalf("details %s %v", second.Details, err)
	}

	runJobTool(t, f, jobs, "bash", map[string]any{"command": "sleep 60", "background": "true"})
	killed := runJobTool(t, f, jobs, "job_kill", map[string]any{"jobId": "job-2"})
	if killed.IsError || !strings.HasPrefix(killed.Text(), "job-2 killed") {
		t.Fatalf("kill: %q", killed.Text())
	}
	for _, name := range []string{"job_output", "job_kill"} {
		bad := runJobTool(t, f, jobs, name, map[string]any{"jobId": "job-7"})
		if !bad.IsError || !strings.Contains(bad.Text(), "job-1, job-2") {
			t.Fatalf("%s of an unknown job: %q", name, bad.Text())
		}
	}
	if bad := runJobTool(t, f, jobs, "job_output", map[string]any{"jobId": "job-1", "waitSeconds": 61}); !bad.IsError {
		t.Fatalf("waitSeconds 61 accepted: %q", bad.Text())
	}
	if bad := runJobTool(t, f, nil, "job_output", map[string]any{"jobId": "job-1"}); !bad.IsError {
		t.Fatal("no jobs: accepted")
	}
}
