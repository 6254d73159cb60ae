package integration

import (
	"path/filepath"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// What a session restores (mode, YOLO) and what renames it reach the
// display through harness events, as the frames an editor applies.
func TestDisplayFollowsSessionModeYoloAndName(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "ok", Repeat: true}})
	s := e.start(startOpt{})
	var a struct {
		Path string `json:"path"`
	}
	s.call("session/new", map[string]any{}, &a)
	s.call("mode/set", map[string]any{"mode": "plan"}, nil)
	s.call("session/setName", map[string]any{"name": "planning"}, nil)
	s.call("permissions/set", map[string]any{"yolo": true}, nil)
	shows := func(what string, want func(mode, name string, yolo bool) bool) {
		t.Helper()
		s.waitFor(what, func() bool {
			v, err := s.Display()
			return err == nil && want(v.State.Mode.ID, v.State.Session.Name, v.State.Yolo)
		})
	}
	shows("plan, yolo and the name", func(m, n string, y bool) bool { return m == "plan" && n == "planning" && y })

	s.call("session/new", map[string]any{}, nil)
	s.call("mode/set", map[string]any{"mode": "build", "yolo": false}, nil)
	shows("build in the new session", func(m, n string, y bool) bool { return m == "build" && n == "" && !y })

	// Opening the first session again restores its mode and YOLO flag.
	s.call("session/open", map[string]any{"path": a.Path}, nil)
	shows("the first session's plan mode, yolo and name", func(m, n string, y bool) bool { return m == "plan" && n == "planning" && y })
}

// Before its first prompt a server has no session file yet, but the display
// already names the folder it works in (editors show it per workspace
// folder).
func TestDisplayNamesTheCwdBeforeTheFirstSession(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "ok", Repeat: true}})
	s := e.start(startOpt{})
	s.waitFor("the display's cwd", func() bool {
		v, err := s.Display()
		return err == nil && v.State.Session.Cwd != ""
	})
	v, _ := s.Display()
	want, _ := filepath.EvalSymlinks(e.workspace)
	got, _ := filepath.EvalSymlinks(v.State.Session.Cwd)
	if got != want || v.State.Session.ID != "" {
		t.Fatalf("display session %+v, want cwd %s and no id", v.State.Session, e.workspace)
	}
}
