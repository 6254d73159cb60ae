package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pi-lsp/pi-lsp/env"
)

// MaxJobWait bounds job_output's waitSeconds.
const MaxJobWait = 60

const jobOutputSchema = `{"type":"object","properties":{` +
	`"jobId":{"type":"string","description":"The job's id (job-N), as bash with background returned it"},` +
	`"waitSeconds":{"type":"number","description":"Wait up to this many seconds (0-60) for the job to exit before returning (default 0: return at once)"},` +
	`"tail":{"type":"number","description":"Return at most the last N lines of the new output"}},` +
	`"required":["jobId"]}`

const jobKillSchema = `{"type":"object","properties":{` +
	`"jobId":{"type":"string","description":"The job's id (job-N)"}},` +
	`"required":["jobId"]}`

func jobOutputTool() Tool {
	desc := fmt.Sprintf("Read a background job's output since the last read, with its status (running|exited|killed) and exit code. With waitSeconds (at most %d), wait until the job exits or the seconds pass, whichever comes first. The job's last %d lines or %dKB are kept in memory; its whole output is in the file the result names.", MaxJobWait, env.JobRingLines, env.JobRingBytes/1024)
	return newTool("job_output", desc, CategoryRead, jobOutputSchema, runJobOutput)
}

func jobKillTool() Tool {
	return newTool("job_kill", "Kill a background job (its whole process group: SIGTERM, then SIGKILL).", CategoryExecute, jobKillSchema, runJobKill)
}

type jobOutputArgs struct {
	JobID       string   `json:"jobId"`
	WaitSeconds optFloat `json:"waitSeconds"`
	Tail        optInt   `json:"tail"`
}

// jobDetails are a job tool's result details.
type jobDetails struct {
	JobID      string `json:"jobId"`
	Pid        int    `json:"pid,omitempty"`
	Status     string `json:"status"`
	ExitCode   *int   `json:"exitCode,omitempty"`
	OutputPath string `json:"outputPath,omitempty"`
	Background bool   `json:"background,omitempty"`
}

func detailsOf(info env.JobInfo) jobDetails {
	return jobDetails{JobID: info.ID, Pid: info.Pid, Status: string(info.Status), ExitCode: info.ExitCode, OutputPath: info.OutputPath}
}

func runJobOutput(ctx context.Context, call Call, x Exec) Result {
	var a jobOutputArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("job_output", err)
	}
	if x.Jobs == nil {
		return errorResult("job_output: background jobs are not available here")
	}
	if a.WaitSeconds.V < 0 || a.WaitSeconds.V > MaxJobWait {
		return errorResult(fmt.Sprintf("job_output: waitSeconds must be between 0 and %d", MaxJobWait))
	}
	if a.Tail.Set && a.Tail.V < 0 {
		return errorResult("job_output: tail must be a positive number of lines")
	}
	job, err := x.Jobs.Get(strings.TrimSpace(a.JobID))
	if err != nil {
		return errorResult("job_output: " + jobErr(err))
	}
	if w := a.WaitSeconds.V; w > 0 {
		wctx, cancel := context.WithTimeout(ctx, time.Duration(w*float64(time.Second)))
		_ = job.WaitEnd(wctx)
		cancel()
		if ctx.Err() != nil {
			return errorResult("Operation aborted")
		}
	}
	info := job.Info()
	text := job.ReadNew(a.Tail.V)
	return withDetails(textResult(jobReport(info, text)), detailsOf(info))
}

// jobReport is what the model reads: a status line, then the new output.
func jobReport(info env.JobInfo, output string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", info.ID, info.Status)
	if info.ExitCode != nil {
		fmt.Fprintf(&b, " (exit code %d)", *info.ExitCode)
	}
	fmt.Fprintf(&b, "\ncommand: %s\n", info.Command)
	if info.OutputPath != "" {
		fmt.Fprintf(&b, "full output: %s\n", info.OutputPath)
	}
	if output == "" {
		b.WriteString("\n(no new output)")
	} else {
		b.WriteString("\n" + strings.TrimSuffix(output, "\n"))
	}
	return b.String()
}

func runJobKill(ctx context.Context, call Call, x Exec) Result {
	var a struct {
		JobID string `json:"jobId"`
	}
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("job_kill", err)
	}
	if x.Jobs == nil {
		return errorResult("job_kill: background jobs are not available here")
	}
	info, err := x.Jobs.Kill(ctx, strings.TrimSpace(a.JobID))
	if err != nil {
		return errorResult("job_kill: " + jobErr(err))
	}
	msg := fmt.Sprintf("%s killed", info.ID)
	if info.Status == env.JobExited {
		msg = fmt.Sprintf("%s had already exited", info.ID)
	}
	if info.ExitCode != nil {
		msg += fmt.Sprintf(" (exit code %d)", *info.ExitCode)
	}
	return withDetails(textResult(msg), detailsOf(info))
}

// jobErr is an env job error without its "job: not_found:" prefix.
func jobErr(err error) string {
	var e *env.Error
	if errors.As(err, &e) && e.Err != nil {
		return e.Err.Error()
	}
	return err.Error()
}

// startBackground starts a bash call's command as a job of the session.
func startBackground(ctx context.Context, x Exec, req env.ExecRequest) Result {
	if x.Jobs == nil {
		return errorResult("bash: background jobs are not available here")
	}
	sp, ok := x.Env.(env.Spawner)
	if !ok {
		return errorResult("bash: this environment cannot run background commands")
	}
	info, err := x.Jobs.Start(ctx, sp, req)
	if err != nil {
		return errorResult(fmt.Sprintf("bash: the background command was not started: %v", err))
	}
	d := detailsOf(info)
	d.Background = true
	text := fmt.Sprintf("started %s (pid %d): %s", info.ID, info.Pid, info.Command)
	return withDetails(textResult(text), d)
}
