package integration

import (
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Every frame and snapshot names the display stream: one per connection,
// kept (with rising versions) across session switches, and another for a
// new server process, whose versions start again (docs/protocol.md,
// "Display streams").
func TestDisplayStreamAcrossSwitchAndRestart(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "ok", Repeat: true}})
	s := e.start(startOpt{})
	s.prompt("one")
	s.waitIdle()
	var snap struct {
		Stream  string `json:"stream"`
		Version int64  `json:"version"`
	}
	s.call("display/snapshot", nil, &snap)
	if snap.Stream == "" || snap.Version < 2 {
		t.Fatalf("snapshot stream %q version %d", snap.Stream, snap.Version)
	}
	s.waitFor("the frames' stream", func() bool {
		v, err := s.Display()
		return err == nil && v.Stream == snap.Stream
	})
	s.call("session/new", map[string]any{}, nil)
	s.waitFor("the new session in the same stream, above the snapshot", func() bool {
		v, err := s.Display()
		return err == nil && v.Stream == snap.Stream && v.Version > snap.Version && len(v.State.Items) == 0 && !v.Stale
	})
	var again struct {
		Stream  string `json:"stream"`
		Version int64  `json:"version"`
	}
	s.call("display/snapshot", nil, &again)
	if again.Stream != snap.Stream || again.Version <= snap.Version {
		t.Fatalf("after the switch: stream %q v%d, want %q above v%d", again.Stream, again.Version, snap.Stream, snap.Version)
	}

	s2 := e.start(startOpt{})
	s2.waitFor("the second process's first frame", func() bool {
		v, err := s2.Display()
		return err == nil && v.Version >= 1 && v.Stream != ""
	})
	v2, _ := s2.Display()
	if v2.Stream == snap.Stream || v2.Version >= again.Version {
		t.Fatalf("second process: stream %q v%d; the first's %q v%d", v2.Stream, v2.Version, snap.Stream, again.Version)
	}
}
