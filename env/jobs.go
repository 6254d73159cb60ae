package env

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// JobStatus is a background job's state.
type JobStatus string

// Job statuses.
const (
	JobRunning JobStatus = "running"
	JobExited  JobStatus = "exited"
	JobKilled  JobStatus = "killed"
)

// Spawned is a command started in the background by a Spawner.
type Spawned struct {
	// Pid is the process id of the job's leader, which is also the id of
	// its process group.
	Pid int
	// Wait blocks until the command has exited and returns its exit code
	// (128+n for a signal n).
	Wait func() (exitCode int, err error)
	// Sandboxed is the sandbox mode the command runs under ("" = none).
	Sandboxed SandboxMode
}

// Spawner starts a command that outlives the call: in its own process
// group, with stdout and stderr interleaved into out (called from one
// goroutine at a time). Local implements it; a sandboxing wrapper sets the
// request's Sandbox first.
type Spawner interface {
	Spawn(req ExecRequest, out func([]byte)) (Spawned, error)
}

// JobInfo describes a job at one moment.
type JobInfo struct {
	ID         string
	Command    string
	Pid        int
	Status     JobStatus
	ExitCode   *int // set once it ended (nil while running; -1 when it could not be waited for)
	StartedAt  time.Time
	EndedAt    time.Time // zero while running
	OutputPath string    // the file holding the whole output ("" when it could not be made)
	Sandboxed  SandboxMode
	OutputSize int64 // bytes written so far
}

// JobEventKind says what changed.
type JobEventKind string

// Job event kinds.
const (
	JobStarted JobEventKind = "started"
	JobOutput  JobEventKind = "output" // Output holds the new bytes
	JobEnded   JobEventKind = "ended"
)

// JobEvent reports a change to a job to the Jobs observer.
type JobEvent struct {
	Kind   JobEventKind
	Job    JobInfo
	Output []byte // JobOutput only; valid during the call
}

// JobsOptions configure a Jobs.
type JobsOptions struct {
	// Dir is where output files go (created 0700 if missing).
	Dir string
	// OnEvent, if set, sees every start, chunk of output and end. It runs
	// on the job's goroutine and must not block.
	OnEvent func(JobEvent)
	// KillGrace is the time between SIGTERM and SIGKILL (DefaultKillGrace).
	KillGrace time.Duration
	// RingLines and RingBytes bound each job's in-memory output
	// (JobRingLines, JobRingBytes).
	RingLines, RingBytes int
}

// Jobs are one session's background jobs, with ids job-1, job-2, … . Every
// job is started from one goroutine locked to its OS thread, which lives as
// long as the Jobs: on Linux each job's leader has that thread as parent for
// PR_SET_PDEATHSIG, so the signal fires when pi-lsp dies (or when Close ends
// the thread), never because the Go runtime retired an arbitrary thread.
// Close kills every job still running.
type Jobs struct {
	opts  JobsOptions
	calls chan func()
	done  chan struct{}

	mu     sync.Mutex
	next   int
	jobs   []*Job
	closed bool
}

// ErrJobsClosed is returned by Start after Close.
var ErrJobsClosed = errors.New("jobs: closed")

// NewJobs returns an empty set of jobs and starts its spawning thread.
func NewJobs(opts JobsOptions) *Jobs {
	if opts.KillGrace <= 0 {
		opts.KillGrace = DefaultKillGrace
	}
	if opts.RingLines <= 0 {
		opts.RingLines = JobRingLines
	}
	if opts.RingBytes <= 0 {
		opts.RingBytes = JobRingBytes
	}
	j := &Jobs{opts: opts, calls: make(chan func()), done: make(chan struct{})}
	go j.spawnLoop()
	return j
}

// spawnLoop runs every spawn on one locked OS thread. It never unlocks: when
// Close ends it, the runtime destroys the thread, and the parent-death
// signal of any leader still alive fires.
func (j *Jobs) spawnLoop() {
	runtime.LockOSThread()
	defer close(j.done)
	for f := range j.calls {
		f()
	}
}

// Start starts req.Command as the next job through sp. The job runs until it
// exits, Kill or Close; ctx bounds only the start.
func (j *Jobs) Start(ctx context.Context, sp Spawner, req ExecRequest) (JobInfo, error) {
	if strings.TrimSpace(req.Command) == "" {
		return JobInfo{}, &Error{Code: CodeInvalid, Op: "job", Err: errors.New("empty command")}
	}
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return JobInfo{}, ErrJobsClosed
	}
	j.next++
	id := fmt.Sprintf("job-%d", j.next)
	j.mu.Unlock()

	job := &Job{id: id, command: req.Command, jobs: j, ring: newJobRing(j.opts.RingLines, j.opts.RingBytes),
		status: JobRunning, done: make(chan struct{}), changed: make(chan struct{})}
	job.openFile(j.opts.Dir)

	type started struct {
		sp  Spawned
		err error
	}
	res := make(chan started, 1)
	call := func() {
		s, err := sp.Spawn(req, job.write)
		res <- started{s, err}
	}
	select {
	case j.calls <- call:
	case <-ctx.Done():
		job.closeFile(true)
		return JobInfo{}, fmt.Errorf("job: %w", ctx.Err())
	}
	r := <-res
	if r.err != nil {
		job.closeFile(true)
		return JobInfo{}, fmt.Errorf("job: %w", r.err)
	}
	job.mu.Lock()
	job.pid, job.sandboxed, job.startedAt = r.sp.Pid, r.sp.Sandboxed, time.Now()
	job.mu.Unlock()

	j.mu.Lock()
	if j.closed {
		// Close ran while it started: it did not see this job.
		j.mu.Unlock()
		killGroup(r.sp.Pid, j.opts.KillGrace)
		_, _ = r.sp.Wait()
		job.closeFile(true)
		return JobInfo{}, ErrJobsClosed
	}
	j.jobs = append(j.jobs, job)
	j.mu.Unlock()
	info := job.Info()
	j.event(JobEvent{Kind: JobStarted, Job: info})
	go job.wait(r.sp.Wait)
	return info, nil
}

func (j *Jobs) event(ev JobEvent) {
	if j.opts.OnEvent != nil {
		j.opts.OnEvent(ev)
	}
}

// Get returns the job with id, or an error naming the known jobs.
func (j *Jobs) Get(id string) (*Job, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, job := range j.jobs {
		if job.id == id {
			return job, nil
		}
	}
	known := make([]string, 0, len(j.jobs))
	for _, job := range j.jobs {
		known = append(known, job.id)
	}
	if len(known) == 0 {
		return nil, &Error{Code: CodeNotFound, Op: "job", Err: fmt.Errorf("unknown job %q: there are no jobs in this session", id)}
	}
	return nil, &Error{Code: CodeNotFound, Op: "job", Err: fmt.Errorf("unknown job %q: the jobs of this session are %s", id, strings.Join(known, ", "))}
}

// List describes every job, in the order they started.
func (j *Jobs) List() []JobInfo {
	j.mu.Lock()
	jobs := append([]*Job(nil), j.jobs...)
	j.mu.Unlock()
	out := make([]JobInfo, 0, len(jobs))
	for _, job := range jobs {
		out = append(out, job.Info())
	}
	return out
}

// Running counts the jobs still running.
func (j *Jobs) Running() int {
	n := 0
	for _, info := range j.List() {
		if info.Status == JobRunning {
			n++
		}
	}
	return n
}

// Kill ends the job's whole process group (SIGTERM, then SIGKILL after the
// grace period) and waits until the job has ended. Killing a job that
// already ended is not an error.
func (j *Jobs) Kill(ctx context.Context, id string) (JobInfo, error) {
	job, err := j.Get(id)
	if err != nil {
		return JobInfo{}, err
	}
	job.kill(j.opts.KillGrace)
	select {
	case <-job.done:
	case <-ctx.Done():
		return job.Info(), fmt.Errorf("job %s: %w", id, ctx.Err())
	}
	return job.Info(), nil
}

// Close kills every running job, waits for them, removes their output files
// and ends the spawning thread. Start fails afterwards.
func (j *Jobs) Close() {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return
	}
	j.closed = true
	jobs := append([]*Job(nil), j.jobs...)
	j.mu.Unlock()
	var wg sync.WaitGroup
	for _, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job.kill(j.opts.KillGrace)
			<-job.done
			job.removeFile()
		}()
	}
	wg.Wait()
	close(j.calls)
	<-j.done
}

// Job is one background command.
type Job struct {
	id, command string
	jobs        *Jobs

	mu        sync.Mutex
	pid       int
	sandboxed SandboxMode
	startedAt time.Time
	endedAt   time.Time
	status    JobStatus
	exitCode  *int
	killing   bool
	ring      *jobRing
	readAt    int64 // the model's cursor (job_output)
	file      *os.File
	path      string
	done      chan struct{} // closed when it ended
	changed   chan struct{} // closed and replaced on every output or end
}

// ID is the job's id (job-N).
func (jb *Job) ID() string { return jb.id }

// Info describes the job now.
func (jb *Job) Info() JobInfo {
	jb.mu.Lock()
	defer jb.mu.Unlock()
	return jb.infoLocked()
}

func (jb *Job) infoLocked() JobInfo {
	info := JobInfo{ID: jb.id, Command: jb.command, Pid: jb.pid, Status: jb.status, StartedAt: jb.startedAt,
		EndedAt: jb.endedAt, OutputPath: jb.path, Sandboxed: jb.sandboxed, OutputSize: jb.ring.end()}
	if jb.exitCode != nil {
		c := *jb.exitCode
		info.ExitCode = &c
	}
	return info
}

// Done is closed once the job has ended.
func (jb *Job) Done() <-chan struct{} { return jb.done }

// Read returns the output after the absolute byte offset after, as text,
// and the offset to read from next. Output the ring no longer holds is
// replaced by a marker naming the output file.
func (jb *Job) Read(after int64) (text string, next int64) {
	jb.mu.Lock()
	defer jb.mu.Unlock()
	data, dropped, next := jb.ring.read(after)
	return jb.textLocked(data, dropped), next
}

// ReadNew returns the output since the last ReadNew (the model's cursor),
// at most the last tail lines of it when tail > 0.
func (jb *Job) ReadNew(tail int) string {
	jb.mu.Lock()
	defer jb.mu.Unlock()
	data, dropped, next := jb.ring.read(jb.readAt)
	jb.readAt = next
	if tail > 0 {
		if cut := cutToLastLines(data, tail); cut > 0 {
			dropped += int64(cut)
			data = data[cut:]
		}
	}
	return jb.textLocked(data, dropped)
}

// Tail returns the last n lines of output the ring holds (all when n <= 0).
func (jb *Job) Tail(n int) string {
	jb.mu.Lock()
	defer jb.mu.Unlock()
	return validText(jb.ring.tailLines(n))
}

func (jb *Job) textLocked(data []byte, dropped int64) string {
	text := validText(data)
	if dropped > 0 {
		where := "the output file"
		if jb.path != "" {
			where = jb.path
		}
		text = fmt.Sprintf("[%d earlier bytes not shown; the whole output is in %s]\n", dropped, where) + text
	}
	return text
}

// validText trims a rune cut at the start and makes the bytes valid UTF-8.
func validText(b []byte) string {
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// cutToLastLines is the index in b where its last n lines start.
func cutToLastLines(b []byte, n int) int {
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if b[i] == '\n' {
			n--
			if n == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// WaitChange blocks until the job writes more output or ends, or ctx is
// done. It returns at once when the job has already ended.
func (jb *Job) WaitChange(ctx context.Context) {
	jb.mu.Lock()
	ch := jb.changed
	jb.mu.Unlock()
	select {
	case <-ch:
	case <-jb.done:
	case <-ctx.Done():
	}
}

// WaitEnd blocks until the job ends or ctx is done.
func (jb *Job) WaitEnd(ctx context.Context) error {
	select {
	case <-jb.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (jb *Job) write(p []byte) {
	jb.mu.Lock()
	jb.ring.write(p)
	if jb.file != nil {
		if _, err := jb.file.Write(p); err != nil {
			jb.file.Close()
			jb.file = nil
		}
	}
	close(jb.changed)
	jb.changed = make(chan struct{})
	info := jb.infoLocked()
	jb.mu.Unlock()
	jb.jobs.event(JobEvent{Kind: JobOutput, Job: info, Output: p})
}

func (jb *Job) wait(wait func() (int, error)) {
	code, err := wait()
	jb.mu.Lock()
	jb.endedAt = time.Now()
	if err != nil {
		code = -1
	}
	jb.exitCode = &code
	jb.status = JobExited
	if jb.killing {
		jb.status = JobKilled
	}
	close(jb.changed)
	jb.changed = make(chan struct{})
	info := jb.infoLocked()
	jb.mu.Unlock()
	jb.closeFile(false)
	// The end is reported before Done closes: whoever waits for the end
	// finds its consequences (the harness's note) in place.
	jb.jobs.event(JobEvent{Kind: JobEnded, Job: info})
	close(jb.done)
}

func (jb *Job) kill(grace time.Duration) {
	jb.mu.Lock()
	if jb.status != JobRunning || jb.pid <= 0 {
		jb.mu.Unlock()
		return
	}
	jb.killing = true
	pid := jb.pid
	jb.mu.Unlock()
	killGroup(pid, grace)
}

// openFile creates the file that keeps the whole output. A failure is not
// fatal: the ring still has the tail.
func (jb *Job) openFile(dir string) {
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(dir, "pi-job-"+jb.id+"-*.log")
	if err != nil {
		return
	}
	jb.file, jb.path = f, f.Name()
}

func (jb *Job) closeFile(remove bool) {
	jb.mu.Lock()
	f := jb.file
	jb.file = nil
	jb.mu.Unlock()
	if f != nil {
		f.Close()
	}
	if remove {
		jb.removeFile()
	}
}

func (jb *Job) removeFile() {
	jb.mu.Lock()
	p := jb.path
	jb.mu.Unlock()
	if p != "" && filepath.Base(p) != "" {
		_ = os.Remove(p)
	}
}
