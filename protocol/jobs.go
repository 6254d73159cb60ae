package protocol

// JobStatus is a background job's state.
type JobStatus string

// Job statuses.
const (
	JobRunning JobStatus = "running"
	JobExited  JobStatus = "exited"
	JobKilled  JobStatus = "killed"
)

// Job is a background job of the session (jobs/list, DisplayState.jobs).
// Times are Unix milliseconds; exitCode and endedAt are null while it runs.
// outputTail is the end of its output, bounded (a few KB).
type Job struct {
	ID         string    `json:"id"`
	Command    string    `json:"command"`
	Status     JobStatus `json:"status"`
	ExitCode   *int      `json:"exitCode"`
	StartedAt  int64     `json:"startedAt"`
	EndedAt    *int64    `json:"endedAt"`
	OutputTail string    `json:"outputTail"`
	Pid        int       `json:"pid"`
	// OutputPath is the file with the whole output ("" when none).
	OutputPath string `json:"outputPath"`
}

// JobsListParams are the params of jobs/list (none).
type JobsListParams struct{}

// JobsListResult is the result of jobs/list.
type JobsListResult struct {
	Jobs []Job `json:"jobs"`
}

// JobsOutputParams are the params of jobs/output. After is a cursor: the
// next of an earlier answer (omitted: from the start of what is kept).
type JobsOutputParams struct {
	JobID string `json:"jobId"`
	After *int64 `json:"after,omitempty"`
}

// JobsOutputResult is the result of jobs/output: the output after the
// cursor and the cursor to pass next.
type JobsOutputResult struct {
	Output string `json:"output"`
	Next   int64  `json:"next"`
}

// JobsKillParams are the params of jobs/kill.
type JobsKillParams struct {
	JobID string `json:"jobId"`
}

// JobsKillResult is the result of jobs/kill (empty).
type JobsKillResult struct{}
