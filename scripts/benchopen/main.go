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
}

func main() {
	bin := flag.String("bin", "bin/pi-lsp", "pi-lsp binary")
	sess := flag.String("session", "", "session file to open")
	line := flag.Bool("line", false, "print \"frameMs openMs peakRssMB snapshotBytes treeMs treeBytes frameCpuMs\" instead of JSON")
	flag.Parse()
	if *sess == "" {
		fmt.Fprintln(os.Stderr, "benchopen: -session is required")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := run(ctx, *bin, *sess)
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

func run(ctx context.Context, bin, sessPath string) (result, error) {
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
	return res, nil
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

// cpuTime reads the user+system CPU time of pid in ms from /proc (0 when
// /proc is not there).
func cpuTime(pid int) float64 {
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
