// Command benchopen measures what opening a session costs an editor over
// the real wire: it starts `pi-lsp serve`, initializes it, then times
// session/open on FILE until the answer and until the first display/state
// frame after it, reads the server's peak RSS (VmHWM) at that moment, and
// measures display/snapshot and the first session/tree page. It prints one
// JSON object (scripts/bench-session.sh reads it).
//
//	go run ./scripts/benchopen -bin bin/pi-lsp -session big.jsonl
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// result is what one run measured.
type result struct {
	OpenMs        float64 `json:"openMs"`        // session/open sent → answered
	FrameMs       float64 `json:"frameMs"`       // session/open sent → first display/state frame after the answer
	PeakRSSMB     float64 `json:"peakRssMB"`     // server VmHWM when the frame arrived
	FrameBytes    int     `json:"frameBytes"`    // that frame, framed
	SnapshotBytes int     `json:"snapshotBytes"` // display/snapshot answer
	SnapshotItems int     `json:"snapshotItems"`
	HistoryOlder  int     `json:"historyOlder"` // items older than the snapshot's
	TreeMs        float64 `json:"treeMs"`       // first session/tree page
	TreeBytes     int     `json:"treeBytes"`
	TreeNodes     int     `json:"treeNodes"`
	PeakRSSEndMB  float64 `json:"peakRssEndMB"` // VmHWM after the snapshot and the tree
	// FrameCPUMs is the CPU time (user+system) the server spent from
	// session/open to the first frame: on a loaded machine it is a better
	// guide than the wall time, which includes waiting for a core.
	FrameCPUMs float64 `json:"frameCpuMs"`
	// Sidecar tells whether the session's index sidecar (<file>.idx)
	// existed before the open (false: the open scanned the whole file).
	Sidecar bool `json:"sidecar"`
	// With -repeat N: every open's time to the first frame and CPU to it,
	// in the order measured (the first is the one above; the later ones
	// each follow a session/new in the same server).
	Frames   []float64 `json:"framesMs,omitempty"`
	FrameCPU []float64 `json:"framesCpuMs,omitempty"`
}

func main() {
	bin := flag.String("bin", "bin/pi-lsp", "pi-lsp binary")
	sess := flag.String("session", "", "session file to open")
	repeat := flag.Int("repeat", 1, "open the session this many times in the same server (a session/new between opens) and report each open's frame and CPU times")
	line := flag.Bool("line", false, "print \"frameMs openMs peakRssMB snapshotBytes treeMs treeBytes frameCpuMs\" instead of JSON")
	flag.Parse()
	if *sess == "" {
		fmt.Fprintln(os.Stderr, "benchopen: -session is required")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := run(ctx, *bin, *sess, *repeat)
	out, _ := json.Marshal(res)
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchopen: %v (measured so far: %s)\n", err, out)
		os.Exit(1)
	}
	if *line {
		fmt.Printf("%.1f %.1f %.1f %d %.1f %d %.1f\n", res.FrameMs, res.OpenMs, res.PeakRSSMB, res.SnapshotBytes, res.TreeMs, res.TreeBytes, res.FrameCPUMs)
		return
	}
	fmt.Println(string(out))
}

func run(ctx context.Context, bin, sessPath string, repeat int) (result, error) {
	var res result
	abs, err := filepath.Abs(sessPath)
	if err != nil {
		return res, err
	}
	tmp, err := os.MkdirTemp("", "benchopen-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(bin, "serve", "--sessions-dir", filepath.Join(tmp, "sessions"))
	cmd.Dir = filepath.Dir(abs)
	cmd.Env = append(os.Environ(), "HOME="+tmp, "OPENAI_API_KEY=")
	cmd.Stderr = os.Stderr
	c, err := rpctest.Dial(cmd)
	if err != nil {
		return res, err
	}
	defer func() {
		_ = c.Close()
		_ = cmd.Wait()
	}()
	if _, err := c.Initialize(ctx, map[string]any{"processId": os.Getpid(), "rootUri": "file://" + cmd.Dir, "capabilities": map[string]any{}}); err != nil {
		return res, fmt.Errorf("initialize: %w", err)
	}
	if err := c.WaitFor(ctx, func() bool { return len(c.Notifications("display/state")) > 0 }); err != nil {
		return res, fmt.Errorf("first display/state: %w", err)
	}
	before := len(c.Notifications("display/state"))

	_, serr := os.Stat(abs + ".idx")
	res.Sidecar = serr == nil
	cpu0 := cpuTime(cmd.Process.Pid)
	t0 := time.Now()
	if err := c.Call(ctx, "session/open", map[string]any{"path": abs}, nil); err != nil {
		return res, fmt.Errorf("session/open: %w", err)
	}
	res.OpenMs = ms(time.Since(t0))
	if err := c.WaitFor(ctx, func() bool { return len(c.Notifications("display/state")) > before }); err != nil {
		return res, fmt.Errorf("display/state after open: %w", err)
	}
	res.FrameMs = ms(time.Since(t0))
	res.FrameCPUMs = cpuTime(cmd.Process.Pid) - cpu0
	res.PeakRSSMB = peakRSS(cmd.Process.Pid)
	res.FrameBytes = c.Notifications("display/state")[before].Bytes

	var snap json.RawMessage
	if err := c.Call(ctx, "display/snapshot", nil, &snap); err != nil {
		return res, fmt.Errorf("display/snapshot: %w", err)
	}
	res.SnapshotBytes = len(snap)
	var sv struct {
		State struct {
			Items   []json.RawMessage `json:"items"`
			History *struct {
				Older int `json:"older"`
			} `json:"history"`
		} `json:"state"`
	}
	if err := json.Unmarshal(snap, &sv); err != nil {
		return res, fmt.Errorf("display/snapshot: %w", err)
	}
	res.SnapshotItems = len(sv.State.Items)
	if sv.State.History != nil {
		res.HistoryOlder = sv.State.History.Older
	}

	t1 := time.Now()
	var tree json.RawMessage
	if err := c.Call(ctx, "session/tree", map[string]any{}, &tree); err != nil {
		return res, fmt.Errorf("session/tree: %w", err)
	}
	res.TreeMs = ms(time.Since(t1))
	res.TreeBytes = len(tree)
	var tv struct {
		Nodes []json.RawMessage `json:"nodes"`
	}
	if json.Unmarshal(tree, &tv) == nil {
		res.TreeNodes = len(tv.Nodes)
	}
	res.PeakRSSEndMB = peakRSS(cmd.Process.Pid)
	if repeat > 1 {
		res.Frames, res.FrameCPU = []float64{res.FrameMs}, []float64{res.FrameCPUMs}
	}
	for i := 1; i < repeat; i++ {
		fms, cpu, err := reopen(ctx, c, cmd.Process.Pid, abs)
		if err != nil {
			return res, err
		}
		res.Frames, res.FrameCPU = append(res.Frames, fms), append(res.FrameCPU, cpu)
	}
	return res, nil
}

// reopen starts a new session, lets its frames settle, then opens path
// again and returns the time and the server CPU to the first frame after
// the answer.
func reopen(ctx context.Context, c *rpctest.Client, pid int, path string) (frameMs, cpuMs float64, err error) {
	n := len(c.Notifications("display/state"))
	if err := c.Call(ctx, "session/new", map[string]any{}, nil); err != nil {
		return 0, 0, fmt.Errorf("session/new: %w", err)
	}
	if err := c.WaitFor(ctx, func() bool { return len(c.Notifications("display/state")) > n }); err != nil {
		return 0, 0, fmt.Errorf("display/state after session/new: %w", err)
	}
	time.Sleep(300 * time.Millisecond)
	before := len(c.Notifications("display/state"))
	cpu0 := cpuTime(pid)
	t0 := time.Now()
	if err := c.Call(ctx, "session/open", map[string]any{"path": path}, nil); err != nil {
		return 0, 0, fmt.Errorf("session/open: %w", err)
	}
	if err := c.WaitFor(ctx, func() bool { return len(c.Notifications("display/state")) > before }); err != nil {
		return 0, 0, fmt.Errorf("display/state after open: %w", err)
	}
	return ms(time.Since(t0)), cpuTime(pid) - cpu0, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// peakRSS reads VmHWM of pid in MB (0 when /proc is not there).
func peakRSS(pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// cpuTime reads the CPU time of pid in ms: the sum of its threads'
// run times in /proc/PID/task/*/schedstat (nanoseconds), or, without
// schedstat, user+system from /proc/PID/stat (10 ms ticks); 0 when /proc
// is not there.
func cpuTime(pid int) float64 {
	if ns, ok := schedTime(pid); ok {
		return float64(ns) / 1e6
	}
	return statTime(pid)
}

// schedTime sums the first field (time on a CPU, ns) of every thread's
// schedstat.
func schedTime(pid int) (int64, bool) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, false
	}
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		sum += v
	}
	return sum, true
}

// statTime reads the user+system CPU time of pid in ms from /proc/PID/stat.
func statTime(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which is in parentheses): utime and
	// stime are the 12th and 13th.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) * 1000 / clockTicks
}

// clockTicks is USER_HZ, 100 on Linux.
const clockTicks = 100
