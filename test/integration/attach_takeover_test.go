package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/internal/pitest"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

type ownerNote struct {
	PID         int    `json:"pid"`
	Reason      string `json:"reason"`
	Interrupted bool   `json:"interrupted"`
}

func ownerNotes(s *server) []ownerNote {
	var out []ownerNote
	for _, n := range s.Notifications("session/owner") {
		var o ownerNote
		_ = json.Unmarshal(n.Params, &o)
		out = append(out, o)
	}
	return out
}

// lockHolders are the pids holding a flock on the file at path, from
// /proc/locks (nil where there is none).
func lockHolders(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ino := fmt.Sprintf(":%d ", inodeOf(fi))
	var pids []int
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || !strings.Contains(f[5]+" ", ino) {
			continue
		}
		var pid int
		fmt.Sscan(f[4], &pid)
		pids = append(pids, pid)
	}
	return pids
}

// checkSessionFile asserts every line of the file is a JSON entry but
// possibly the last, and that every entry id of kept is still there.
func checkSessionFile(t *testing.T, path string, kept []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	ids := map[string]bool{}
	for i, l := range lines {
		var e struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(l, &e); err != nil {
			if i != len(lines)-1 {
				t.Fatalf("line %d of %d is torn: %q", i+1, len(lines), l)
			}
			continue
		}
		ids[e.ID] = true
	}
	for _, id := range kept {
		if !ids[id] {
			t.Fatalf("entry %s was lost", id)
		}
	}
}

func entryIDs(t *testing.T, path string) []string {
	var out []string
	for _, e := range readSessionFile(t, path) {
		if id, ok := e["id"].(string); ok {
			out = append(out, id)
		}
	}
	return out
}

// The owner is killed with -9 in the middle of a run, ten times at random
// moments: the attached process takes over, the next prompt works, the
// file keeps every entry and is never written by two processes, and pi
// opens it.
func TestKillOwnerTakeover(t *testing.T) {
	long := strings.Repeat("streaming word ", 60)
	e := newEnv(t, []llmtest.Response{
		{Match: "slow", Text: long, ChunkSize: 8, ChunkDelayMs: 5, Repeat: true},
		{Text: "after the takeover", Repeat: true},
	})
	rt := runtimeDir(t)
	owner := e.start(startOpt{extraEnv: rt})
	owner.prompt("make a session")
	owner.waitIdle()
	path := owner.state().Path
	interrupted := 0
	for i := range 10 {
		next := e.start(startOpt{extraEnv: rt, initOpts: map[string]any{"session": path}})
		if pids := lockHolders(t, path); len(pids) > 1 {
			t.Fatalf("round %d: %d lock holders %v", i, len(pids), pids)
		}
		kept := entryIDs(t, path)
		next.prompt(fmt.Sprintf("slow %d", i))
		time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
		was := owner.cmd.Process.Pid
		if err := owner.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		next.waitFor("the takeover", func() bool { return len(ownerNotes(next)) > 0 })
		if o := ownerNotes(next)[0]; o.PID != next.cmd.Process.Pid || o.Reason != "takeover" {
			t.Fatalf("round %d: session/owner %+v, want pid %d takeover", i, o, next.cmd.Process.Pid)
		}
		if ownerNotes(next)[0].Interrupted {
			interrupted++
			// The display says so: a notice item naming the dead owner.
			notice := fmt.Sprintf("(pid %d) exited mid-run; the run was interrupted", was)
			next.waitFor("the interrupted notice", func() bool {
				v, err := next.Display()
				return err == nil && strings.Contains(mustJSON(v.State), notice)
			})
		}
		next.waitIdle()
		if pids := lockHolders(t, path); len(pids) != 1 || pids[0] != next.cmd.Process.Pid {
			t.Fatalf("round %d: lock holders %v, want only %d", i, pids, next.cmd.Process.Pid)
		}
		next.prompt(fmt.Sprintf("next prompt %d", i))
		next.waitIdle()
		if n := userMessages(t, path, fmt.Sprintf("next prompt %d", i)); n != 1 {
			t.Fatalf("round %d: the next prompt is in the file %d times", i, n)
		}
		checkSessionFile(t, path, kept)
		owner = next
	}
	t.Logf("%d of 10 takeovers reported the run as interrupted", interrupted)
	if interrupted == 0 {
		t.Fatal("no kill fell in a run: the interrupted report was never checked")
	}
	owner.call("shutdown", nil, nil)
	_ = owner.Notify("exit", nil)
	waitExit(t, owner, 0)
	checkSessionFile(t, path, nil)

	t.Run("pi opens it", func(t *testing.T) {
		pitest.Bin(t)
		spec := llmtest.ModelSpec{ID: "m1", Name: "M1"}
		pi := pitest.Start(t, piEnv(t, e, spec), e.workspace, "--session", path, "--provider", "fake", "--model", "m1")
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		if st := getPiState(ctx, t, pi); st.SessionFile != path || st.MessageCount == 0 {
			t.Fatalf("pi opened %+v", st)
		}
	})
}

func inodeOf(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// The owner's editor closes while two others are attached: the first
// attached process takes the session over with the queue, the other
// attaches to it, and a follow-up queued before the hand-over is delivered
// after it.
func TestCleanExitHandsOver(t *testing.T) {
	long := strings.Repeat("streaming word ", 200)
	e := newEnv(t, []llmtest.Response{
		// The follow-up's request holds "slow run" too: its answer comes first.
		{Match: "queued before", Text: "the follow-up was delivered"},
		{Match: "slow", Text: long, ChunkSize: 8, ChunkDelayMs: 10, Repeat: true},
		{Text: "hi", Repeat: true},
	})
	rt := runtimeDir(t)
	owner := e.start(startOpt{extraEnv: rt})
	owner.prompt("make a session")
	owner.waitIdle()
	path := owner.state().Path
	succ := e.start(startOpt{extraEnv: rt, initOpts: map[string]any{"session": path}})
	other := e.start(startOpt{extraEnv: rt, initOpts: map[string]any{"session": path}})

	succ.prompt("slow run")
	succ.waitFor("the run", func() bool { return succ.state().IsRunning })
	succ.call("agent/followUp", map[string]any{"text": "queued before the hand-over"}, nil)
	succ.waitFor("the answer streaming", func() bool {
		v, err := succ.Display()
		return err == nil && strings.Contains(mustJSON(v.State), "streaming word")
	})
	versions := map[*server]int64{}
	frames := map[*server]int{}
	for _, s := range []*server{succ, other} {
		v, err := s.Display()
		if err != nil || v.Version == 0 {
			t.Fatalf("display before the hand-over: %+v %v", v, err)
		}
		versions[s] = v.Version
		frames[s] = len(s.Notifications("display/state")) // any later frame is newer than versions[s]
	}
	owner.call("shutdown", nil, nil)
	_ = owner.Notify("exit", nil)
	waitExit(t, owner, 0)

	for _, s := range []*server{succ, other} {
		s.waitFor("session/owner", func() bool { return len(ownerNotes(s)) > 0 })
		if o := ownerNotes(s)[0]; o.PID != succ.cmd.Process.Pid || o.Reason != "handover" || !o.Interrupted {
			t.Fatalf("session/owner %+v, want pid %d handover, interrupted", o, succ.cmd.Process.Pid)
		}
	}
	// The slow run was interrupted, not dropped: its partial answer is an
	// interrupted item and a notice names the owner that left, in both.
	notice := fmt.Sprintf("(pid %d) exited mid-run; the run was interrupted", owner.cmd.Process.Pid)
	for _, s := range []*server{succ, other} {
		s.waitFor("the interrupted run in the display", func() bool {
			v, err := s.Display()
			if err != nil {
				return false
			}
			var st struct {
				Items []struct {
					Kind, Text, Status string
				} `json:"items"`
			}
			_ = json.Unmarshal([]byte(mustJSON(v.State)), &st)
			partial, told := false, false
			for _, it := range st.Items {
				partial = partial || (it.Kind == "assistant" && it.Status == "interrupted" && strings.HasPrefix(it.Text, "streaming word"))
				told = told || (it.Kind == "info" && strings.Contains(it.Text, notice))
			}
			return partial && told
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(readFile(t, path), "the follow-up was delivered") {
		if time.Now().After(deadline) {
			t.Fatalf("the follow-up was not delivered; the session:\n%s", readFile(t, path))
		}
		time.Sleep(20 * time.Millisecond)
	}
	succ.waitIdle()
	if n := userMessages(t, path, "queued before the hand-over"); n != 1 {
		t.Fatalf("the follow-up is in the file %d times, want 1", n)
	}
	if pids := lockHolders(t, path); len(pids) != 1 || pids[0] != succ.cmd.Process.Pid {
		t.Fatalf("lock holders %v, want only %d", pids, succ.cmd.Process.Pid)
	}
	// The other one prompts into the new owner.
	other.prompt("after the hand-over")
	other.waitIdle()
	if n := userMessages(t, path, "after the hand-over"); n != 1 {
		t.Fatalf("the other's prompt is in the file %d times", n)
	}
	other.waitFor("the other's display", func() bool {
		v, err := other.Display()
		return err == nil && strings.Contains(mustJSON(v.State), "the follow-up was delivered")
	})
	checkSessionFile(t, path, nil)
	// The display versions went on from where each editor was, without a
	// gap, through the change of owner.
	for _, s := range []*server{succ, other} {
		v, err := s.Display()
		if err != nil || v.Stale || v.Gaps != 0 || v.Version <= versions[s] {
			t.Fatalf("display after the hand-over: version %d (before %d), gaps %d, stale %v, %v", v.Version, versions[s], v.Gaps, v.Stale, err)
		}
		for _, n := range s.Notifications("display/state")[frames[s]:] {
			var f struct {
				Version int64 `json:"version"`
			}
			_ = json.Unmarshal(n.Params, &f)
			if f.Version <= versions[s] {
				t.Fatalf("a display frame after the hand-over has version %d, not after %d", f.Version, versions[s])
			}
		}
	}
}

// An owner killed with nobody attached leaves its socket behind: the next
// opener finds it refused and the lock free, removes it, opens the session
// itself and serves a socket of its own.
func TestStaleSocketIsReplaced(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "hi", Repeat: true}})
	rt := runtimeDir(t)
	owner := e.start(startOpt{extraEnv: rt})
	owner.prompt("make a session")
	owner.waitIdle()
	path := owner.state().Path
	sock := socketFile(t, rt, path)
	fi, err := os.Stat(sock)
	if err != nil {
		t.Fatalf("the owner serves no socket: %v", err)
	}
	di, err := os.Stat(filepath.Dir(sock))
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 || di.Mode().Perm() != 0o700 {
		t.Fatalf("socket mode %v, directory %v (%v); want a 0600 socket in a 0700 directory", fi.Mode(), di.Mode(), err)
	}
	if err := owner.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = owner.cmd.Wait()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the killed owner's socket is gone already (%v): nothing stale to test", err)
	}
	next := e.start(startOpt{extraEnv: rt, initOpts: map[string]any{"session": path}})
	if strings.Contains(string(next.init), `"attached"`) {
		t.Fatalf("attached to a dead owner: %s", next.init)
	}
	if pids := lockHolders(t, path); len(pids) != 1 || pids[0] != next.cmd.Process.Pid {
		t.Fatalf("lock holders %v, want %d", pids, next.cmd.Process.Pid)
	}
	// Its own socket answers: a third opener attaches to it.
	third := e.start(startOpt{extraEnv: rt})
	var res openResult
	third.call("session/open", map[string]any{"path": path}, &res)
	if !res.Attached || res.OwnerPID != next.cmd.Process.Pid {
		t.Fatalf("third: %+v, want attached to %d", res, next.cmd.Process.Pid)
	}
}

// socketFile is the session's socket path under the runtime dir of rt.
func socketFile(t *testing.T, rt []string, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return fmt.Sprintf("%s/pi-lsp/%d-%d.sock", strings.TrimPrefix(rt[0], "XDG_RUNTIME_DIR="), uint64(st.Dev), st.Ino)
}
