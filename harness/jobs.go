package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Job events. EvJob carries a job's state (started, ended); EvJobOutput
// carries a chunk of its output in Output.
//
// MERGEABLE: consecutive EvJobOutput events of one job (Job.ID) may be
// merged by concatenating Output, like message_update text deltas; a
// connection's outbox may coalesce them. EvJob events never drop.
const (
	EvJob       EventType = "job_update"
	EvJobOutput EventType = "job_output"
)

// JobNoteType is the customType of the message that tells the model about
// jobs that ended since its last request.
const JobNoteType = "pi-lsp/job"

// jobNoteCommand bounds the command quoted in a note.
const jobNoteCommand = 80

// JobView is a background job as events and the wire layers see it.
// Times are Unix milliseconds; EndedAt is 0 while it runs.
type JobView struct {
	ID         string `json:"id"`
	Command    string `json:"command"`
	Pid        int    `json:"pid"`
	Status     string `json:"status"` // running | exited | killed
	ExitCode   *int   `json:"exitCode,omitempty"`
	StartedAt  int64  `json:"startedAt"`
	EndedAt    int64  `json:"endedAt,omitempty"`
	OutputPath string `json:"outputPath,omitempty"`
	// OutputTail is the end of the output (JobView from Jobs, and the
	// started event: empty), at most a few KB.
	OutputTail string `json:"outputTail,omitempty"`
}

// jobTailBytes bounds JobView.OutputTail from Jobs.
const jobTailBytes = 4096

// jobState holds the current session's background jobs and the notes of
// the jobs that ended since the model's last request.
type jobState struct {
	jobMu    sync.Mutex
	jobs     *env.Jobs
	jobNotes []string
}

func jobView(info env.JobInfo) JobView {
	v := JobView{ID: info.ID, Command: info.Command, Pid: info.Pid, Status: string(info.Status), ExitCode: info.ExitCode,
		StartedAt: info.StartedAt.UnixMilli(), OutputPath: info.OutputPath}
	if !info.EndedAt.IsZero() {
		v.EndedAt = info.EndedAt.UnixMilli()
	}
	return v
}

// sessionJobs returns the current session's jobs, making them on first use.
func (h *Harness) sessionJobs() *env.Jobs {
	h.jobMu.Lock()
	defer h.jobMu.Unlock()
	if h.jobs == nil {
		var js *env.Jobs
		js = env.NewJobs(env.JobsOptions{Dir: tools.SpillDir(), OnEvent: func(ev env.JobEvent) { h.onJobEvent(js, ev) }})
		h.jobs = js
	}
	return h.jobs
}

// currentJobs returns the current session's jobs, or nil when none started.
func (h *Harness) currentJobs() *env.Jobs {
	h.jobMu.Lock()
	defer h.jobMu.Unlock()
	return h.jobs
}

// closeJobs kills the jobs of the session being closed (or left) and
// forgets their notes. Their events are not reported: they belong to a
// session no longer current.
func (h *Harness) closeJobs() {
	h.jobMu.Lock()
	js := h.jobs
	h.jobs = nil
	h.jobNotes = nil
	h.jobMu.Unlock()
	if js != nil {
		js.Close()
	}
}

func (h *Harness) onJobEvent(js *env.Jobs, ev env.JobEvent) {
	h.jobMu.Lock()
	current := h.jobs == js
	if current && ev.Kind == env.JobEnded {
		h.jobNotes = append(h.jobNotes, jobNote(ev.Job))
	}
	h.jobMu.Unlock()
	if !current {
		return
	}
	v := jobView(ev.Job)
	switch ev.Kind {
	case env.JobOutput:
		h.emit(Event{Type: EvJobOutput, Job: &JobView{ID: v.ID}, Output: string(ev.Output)})
	default:
		h.emit(Event{Type: EvJob, Job: &v})
	}
}

// jobNote is the one line the model reads about a job that ended.
func jobNote(info env.JobInfo) string {
	cmd := strings.Join(strings.Fields(info.Command), " ")
	if r := []rune(cmd); len(r) > jobNoteCommand {
		cmd = string(r[:jobNoteCommand]) + "…"
	}
	code := -1
	if info.ExitCode != nil {
		code = *info.ExitCode
	}
	if info.Status == env.JobKilled {
		return fmt.Sprintf("%s was killed (%s)", info.ID, cmd)
	}
	return fmt.Sprintf("%s exited with code %d (%s)", info.ID, code, cmd)
}

// recordJobNotes records, before a model request, one message naming the
// jobs that ended since the last request, so the model hears of them
// without polling.
func (h *Harness) recordJobNotes(ctx context.Context) error {
	h.jobMu.Lock()
	notes := h.jobNotes
	h.jobNotes = nil
	h.jobMu.Unlock()
	if len(notes) == 0 {
		return nil
	}
	m := llm.Message{Role: llm.RoleCustom, CustomType: JobNoteType, Display: true,
		Content: []llm.ContentBlock{llm.TextBlock(strings.Join(notes, "\n"))}, Timestamp: h.now()}
	return h.recordMessage(ctx, m)
}

// jobStateEvents are the events that show the current jobs to a display
// that attaches (history.go).
func (h *Harness) jobStateEvents() []Event {
	var evs []Event
	for _, v := range h.Jobs() {
		v := v
		evs = append(evs, Event{Type: EvJob, Job: &v})
	}
	return evs
}

// Jobs lists the current session's background jobs, oldest first, each
// with the end of its output.
func (h *Harness) Jobs() []JobView {
	js := h.currentJobs()
	if js == nil {
		return []JobView{}
	}
	infos := js.List()
	out := make([]JobView, 0, len(infos))
	for _, info := range infos {
		v := jobView(info)
		if jb, err := js.Get(info.ID); err == nil {
			v.OutputTail = tailBytes(jb.Tail(0), jobTailBytes)
		}
		out = append(out, v)
	}
	return out
}

// JobOutput reads a job's output after the byte offset after (0 = from
// the start of what is kept) and returns the offset to read from next.
func (h *Harness) JobOutput(id string, after int64) (string, int64, error) {
	if after < 0 {
		return "", 0, fmt.Errorf("%w: after must not be negative", ErrInvalid)
	}
	jb, err := h.job(id)
	if err != nil {
		return "", 0, err
	}
	text, next := jb.Read(after)
	return text, next, nil
}

// KillJob kills a job's process group and waits for it to end.
func (h *Harness) KillJob(ctx context.Context, id string) (JobView, error) {
	if _, err := h.job(id); err != nil {
		return JobView{}, err
	}
	info, err := h.currentJobs().Kill(ctx, id)
	if err != nil {
		return JobView{}, fmt.Errorf("kill %s: %w", id, err)
	}
	return jobView(info), nil
}

func (h *Harness) job(id string) (*env.Job, error) {
	if strings.TrimSpace(id) == "" {
		return nil, fmt.Errorf("%w: jobId is required", ErrInvalid)
	}
	js := h.currentJobs()
	if js == nil {
		return nil, fmt.Errorf("%w: unknown job %q: there are no jobs in this session", ErrInvalid, id)
	}
	jb, err := js.Get(id)
	if err != nil {
		var e *env.Error
		if errors.As(err, &e) {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, e.Err)
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return jb, nil
}

func tailBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return strings.ToValidUTF8(s, "")
}

// toolJobs are the jobs a tool call may use: the session's, made on first
// use by the job tools and by bash with background; nil for other calls.
func (h *Harness) toolJobs(call tools.Call) *env.Jobs {
	switch {
	case call.Name == "job_output" || call.Name == "job_kill":
		return h.sessionJobs()
	case call.Name == "bash" && strings.Contains(string(call.Args), "background"):
		return h.sessionJobs()
	}
	return nil
}

// Spawn starts a background command under the tool call's sandbox policy,
// as Exec runs a foreground one.
func (s sandboxedEnv) Spawn(req env.ExecRequest, out func([]byte)) (env.Spawned, error) {
	if s.refuse != nil {
		return env.Spawned{}, &env.Error{Code: env.CodePermissionDenied, Op: "sandbox", Err: s.refuse}
	}
	if req.Sandbox == nil {
		req.Sandbox = s.policy
	}
	sp, ok := s.Env.(env.Spawner)
	if !ok {
		return env.Spawned{}, &env.Error{Code: env.CodeInvalid, Op: "spawn", Err: errors.New("this environment cannot run background commands")}
	}
	return sp.Spawn(req, out)
}
