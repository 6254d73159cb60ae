package integration

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

func backgroundCall(id, command string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "bash", Arguments: mustJSON(map[string]any{"command": command, "background": true})}
}

func jobCall(id, tool string, args map[string]any) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: tool, Arguments: mustJSON(args)}
}

// groupProcesses lists the live processes of process group pgid (/proc).
func groupProcesses(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// waitGroupGone waits (bounded) until no live process is left in pgid.
func waitGroupGone(t *testing.T, pgid int, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		left := groupProcesses(t, pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: processes %v of job group %d are still alive", what, left, pgid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitGrandchildren waits until the job's group has its shell and both
// sleeps (`sleep 300 & sleep 300`), so a kill has grandchildren to reach.
func waitGrandchildren(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(groupProcesses(t, pgid)) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("group %d never had its grandchildren: %v", pgid, groupProcesses(t, pgid))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func listJobs(s *server) []protocol.Job {
	s.t.Helper()
	var res protocol.JobsListResult
	s.call("jobs/list", map[string]any{}, &res)
	return res.Jobs
}

// A background command returns at once; job_output reads it while it runs
// and, with a wait, returns its later output and exit code; the model's
// next request carries a note of its end; jobs/list, jobs/output and the
// display state show it; bad params get -32602.
func TestBackgroundJobOverTheWire(t *testing.T) {
	e := newEnv(t, nil)
	// The job runs 4 s, then waits for the gate the test opens once the
	// model has seen it running (so no assert depends on timing).
	cmd := "echo first; sleep 4; while [ ! -e gate ]; do sleep 0.05; done; echo second; exit 3"
	e.llm.Append(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{backgroundCall("b1", cmd)}},
		llmtest.Response{ToolCalls: []llmtest.ToolCall{jobCall("o1", "job_output", map[string]any{"jobId": "job-1"})}},
		llmtest.Response{ToolCalls: []llmtest.ToolCall{jobCall("o2", "job_output", map[string]any{"jobId": "job-1", "waitSeconds": 60})}},
		llmtest.Response{Text: "the job is done"},
	)
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("run the tests in the background")
	s.waitFor("job_output's first result", func() bool { return len(toolResults(s)) >= 2 })
	res := toolResults(s)
	if !strings.HasPrefix(res[0], "started job-1 (pid ") || !strings.HasSuffix(res[0], "): "+cmd) {
		t.Fatalf("bash background result: %q", res[0])
	}
	if !strings.HasPrefix(res[1], "job-1: running\n") {
		t.Fatalf("the first job_output must come back while the job runs: %q", res[1])
	}
	// jobs/list and the display state show the running job.
	jobs := listJobs(s)
	if len(jobs) != 1 || jobs[0].ID != "job-1" || jobs[0].Status != protocol.JobRunning || jobs[0].Command != cmd ||
		jobs[0].ExitCode != nil || jobs[0].EndedAt != nil || jobs[0].StartedAt == 0 || jobs[0].Pid <= 0 {
		t.Fatalf("jobs/list while running: %+v", jobs)
	}
	var snap protocol.DisplaySnapshot
	s.call("display/snapshot", nil, &snap)
	if len(snap.State.Jobs) != 1 || snap.State.Jobs[0].ID != "job-1" || snap.State.Jobs[0].Status != protocol.JobRunning {
		t.Fatalf("display state jobs: %+v", snap.State.Jobs)
	}
	writeFile(t, filepath.Join(e.workspace, "gate"), "")
	s.waitIdle()

	res = toolResults(s)
	// "first" is in the first read or, if the job had not printed it yet,
	// in this one.
	if len(res) != 3 || !strings.HasPrefix(res[2], "job-1: exited (exit code 3)\n") || !strings.HasSuffix(res[2], "second") ||
		strings.Count(res[1]+res[2], "\nfirst") != 1 {
		t.Fatalf("job_output with a wait: %q", res)
	}
	reqs := e.llm.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests", len(reqs))
	}
	// The note quotes the command, cut at 80 characters.
	note := "job-1 exited with code 3 (" + cmd[:80] + "…)"
	if !strings.Contains(string(reqs[3]), note) || strings.Contains(string(reqs[2]), "exited with code") {
		t.Fatalf("the request after the job ended must carry %q:\n%s", note, reqs[3])
	}

	jobs = listJobs(s)
	if len(jobs) != 1 || jobs[0].Status != protocol.JobExited || jobs[0].ExitCode == nil || *jobs[0].ExitCode != 3 ||
		jobs[0].EndedAt == nil || jobs[0].OutputTail != "first\nsecond\n" || jobs[0].OutputPath == "" {
		t.Fatalf("jobs/list after the end: %+v", jobs)
	}
	if data, err := os.ReadFile(jobs[0].OutputPath); err != nil || string(data) != "first\nsecond\n" {
		t.Fatalf("output file: %q %v", data, err)
	}
	// The display state got the output (coalesced appends) and the end.
	s.waitFor("the display state's job end", func() bool {
		s.call("display/snapshot", nil, &snap)
		return len(snap.State.Jobs) == 1 && snap.State.Jobs[0].Status == protocol.JobExited
	})
	if j := snap.State.Jobs[0]; j.OutputTail != "first\nsecond\n" || j.ExitCode == nil || *j.ExitCode != 3 {
		t.Fatalf("display state job: %+v", j)
	}

	var out protocol.JobsOutputResult
	s.call("jobs/output", map[string]any{"jobId": "job-1"}, &out)
	if out.Output != "first\nsecond\n" || out.Next != int64(len("first\nsecond\n")) {
		t.Fatalf("jobs/output: %+v", out)
	}
	after := int64(len("first\n"))
	s.call("jobs/output", protocol.JobsOutputParams{JobID: "job-1", After: &after}, &out)
	if out.Output != "second\n" || out.Next != 13 {
		t.Fatalf("jobs/output after %d: %+v", after, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		method string
		params any
		want   string
	}{
		{"jobs/output", map[string]any{"jobId": 5}, ""},
		{"jobs/output", map[string]any{"jobId": "job-1", "after": -1}, "after"},
		{"jobs/output", map[string]any{"jobId": "job-9"}, "job-1"},
		{"jobs/kill", map[string]any{"jobId": "job-9"}, "job-1"},
		{"jobs/kill", map[string]any{}, "jobId"},
		{"jobs/list", []int{1}, ""},
	} {
		err := s.Call(ctx, c.method, c.params, nil)
		var re *rpctest.Error
		if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(re.Message, c.want) {
			t.Errorf("%s %v: got %v, want -32602 naming %q", c.method, c.params, err, c.want)
		}
	}
	if len(listJobs(s)) != 1 {
		t.Fatal("the server stopped serving after bad params")
	}
}

// jobs/kill ends the job's whole process group; shutdown ends the others.
func TestJobsKillAndShutdown(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{backgroundCall("b1", "sleep 300 & sleep 300; wait"), backgroundCall("b2", "sleep 300 & sleep 300; wait")}},
		{Text: "both started"},
	})
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("start two servers")
	s.waitIdle()
	jobs := listJobs(s)
	if len(jobs) != 2 || jobs[0].Status != protocol.JobRunning || jobs[1].Status != protocol.JobRunning {
		t.Fatalf("jobs: %+v", jobs)
	}
	for _, j := range jobs {
		waitGrandchildren(t, j.Pid)
	}
	var res protocol.JobsKillResult
	s.call("jobs/kill", map[string]any{"jobId": "job-1"}, &res)
	if left := groupProcesses(t, jobs[0].Pid); len(left) != 0 {
		t.Fatalf("jobs/kill returned with processes %v of the group alive", left)
	}
	if got := listJobs(s); got[0].Status != protocol.JobKilled || got[1].Status != protocol.JobRunning {
		t.Fatalf("after kill: %+v", got)
	}
	s.call("shutdown", nil, nil)
	if err := s.Notify("exit", nil); err != nil {
		t.Fatal(err)
	}
	waitExit(t, s, 0)
	waitGroupGone(t, jobs[1].Pid, "after shutdown")
}

// A kill -9 of pi-lsp leaves no job process behind (the job supervisor's
// lifeline and the parent-death signal).
func TestJobsDieWithKilledServer(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{backgroundCall("b1", "sleep 300 & sleep 300; wait")}},
		{Text: "started"},
	})
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("start a server")
	s.waitIdle()
	jobs := listJobs(s)
	if len(jobs) != 1 {
		t.Fatalf("jobs: %+v", jobs)
	}
	waitGrandchildren(t, jobs[0].Pid)
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGroupGone(t, jobs[0].Pid, "after kill -9 of pi-lsp")
}

// A job's secret output is masked in everything the client receives —
// display/state, harness/event, jobs/list, jobs/output — while the model
// reads the real value.
func TestJobSecretOutputMasked(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{backgroundCall("b1", "echo key=$MY_SERVICE_API_KEY")}},
		{ToolCalls: []llmtest.ToolCall{jobCall("o1", "job_output", map[string]any{"jobId": "job-1", "waitSeconds": 30})}},
		{Text: "done"},
	})
	s := e.start(startOpt{args: []string{"--yolo"}, extraEnv: []string{"MY_SERVICE_API_KEY=" + envSecret},
		caps: map[string]any{"harnessEvents": true}})
	s.prompt("print the key in the background")
	s.waitIdle()
	reqs := e.llm.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2]), "key="+envSecret) {
		t.Fatalf("the model must read the real output: %d requests", len(reqs))
	}
	jobs := listJobs(s)
	if len(jobs) != 1 || jobs[0].Status != protocol.JobExited || !strings.HasPrefix(jobs[0].OutputTail, "key=") {
		t.Fatalf("jobs/list: %+v", jobs)
	}
	var out json.RawMessage
	s.call("jobs/output", map[string]any{"jobId": "job-1"}, &out)
	var list, snap json.RawMessage
	s.call("jobs/list", map[string]any{}, &list)
	s.call("display/snapshot", nil, &snap)
	s.waitFor("job output on the wire", func() bool {
		return strings.Contains(s.allNotifications(), `"job_output"`)
	})
	all := s.allNotifications() + string(out) + string(list) + string(snap)
	if strings.Contains(all, envSecret) {
		t.Fatal("the job's secret reached the client")
	}
	if !strings.Contains(string(out), "key=") {
		t.Fatalf("jobs/output: %s", out)
	}
}

// A job that prints 100 MB: pi-lsp's memory stays bounded (its peak RSS,
// read from /proc, stays far below the output's size) and the display
// state's frames carry a bounded tail, not the output.
func TestJobLargeOutputBoundedOverTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 100 MB")
	}
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{backgroundCall("b1", "head -c 104857600 /dev/zero | tr '\\0' x | fold -w 99")}},
		{Text: "started"},
	})
	s := e.start(startOpt{args: []string{"--yolo"}})
	baseKB := peakKB(t, s.cmd.Process.Pid)
	s.prompt("flood")
	s.waitIdle()
	deadline := time.Now().Add(3 * time.Minute)
	for listJobs(s)[0].Status == protocol.JobRunning {
		if time.Now().After(deadline) {
			t.Fatal("the job did not end")
		}
		time.Sleep(100 * time.Millisecond)
	}
	hwmKB := peakKB(t, s.cmd.Process.Pid)
	frames := 0
	for _, n := range s.Notifications("display/state") {
		frames += len(n.Params)
	}
	t.Logf("100 MB job: pi-lsp peak RSS %d MB (%d MB after initialize), display/state bytes %d", hwmKB/1024, baseKB/1024, frames)
	// The peak grows by far less than the output: kept whole, 100 MB
	// would show (twice over under the race detector, whose binary starts
	// bigger, so the growth is what is judged, not the total).
	if hwmKB == 0 || hwmKB-baseKB > 70*1024 {
		t.Fatalf("pi-lsp's peak RSS grew from %d KB to %d KB for a job that printed 100 MB", baseKB, hwmKB)
	}
	if frames > 4<<20 {
		t.Fatalf("display/state carried %d bytes for a job's output", frames)
	}
	if j := listJobs(s)[0]; len(j.OutputTail) > 4096 || j.ExitCode == nil || *j.ExitCode != 0 {
		t.Fatalf("job: status %s, tail %d bytes", j.Status, len(j.OutputTail))
	}
}

// The editor going away (pi-lsp's stdin closes) ends the session's jobs.
func TestJobsDieWithClosedStdin(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{backgroundCall("b1", "sleep 300 & sleep 300; wait")}},
		{Text: "started"},
	})
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("start a server")
	s.waitIdle()
	jobs := listJobs(s)
	if len(jobs) != 1 {
		t.Fatalf("jobs: %+v", jobs)
	}
	waitGrandchildren(t, jobs[0].Pid)
	_ = s.Close()
	waitGroupGone(t, jobs[0].Pid, "after stdin closed")
}

// Switching the session ends the jobs of the session left.
func TestJobsEndWithTheirSession(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{backgroundCall("b1", "sleep 300 & sleep 300; wait")}},
		{Text: "started"},
	})
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("start a server")
	s.waitIdle()
	jobs := listJobs(s)
	if len(jobs) != 1 {
		t.Fatalf("jobs: %+v", jobs)
	}
	waitGrandchildren(t, jobs[0].Pid)
	s.call("session/new", map[string]any{}, nil)
	waitGroupGone(t, jobs[0].Pid, "after session/new")
	if got := listJobs(s); len(got) != 0 {
		t.Fatalf("the new session lists the old session's jobs: %+v", got)
	}
}

// peakKB is a process's peak resident set (VmHWM) in KB.
func peakKB(t *testing.T, pid int) int {
	t.Helper()
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skip("no /proc")
	}
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			kb, _ := strconv.Atoi(strings.Fields(l)[1])
			return kb
		}
	}
	return 0
}
