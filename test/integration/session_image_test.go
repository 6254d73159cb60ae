package integration

import (
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// An image sent with a prompt is kept by the session: after a reopen in
// another process (a window reload), the user item's image attachment names
// where it is (no bytes in the state) and session/image returns the picture.
func TestSessionImageAfterReopen(t *testing.T) {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	const jpeg = "/9j/4AAQSkZJRgABAQ=="
	e := newEnv(t, []llmtest.Response{{Text: "two pictures"}}, llmtest.ModelSpec{ID: "m1", Input: []string{"text", "image"}})
	s := e.start(startOpt{})
	s.call("agent/prompt", map[string]any{"text": "what is in these?", "context": []map[string]any{
		{"type": "image", "mimeType": "image/png", "data": png},
		{"type": "selection", "path": "a.go", "range": map[string]any{"startLine": 1, "endLine": 1}, "text": "x"},
		{"type": "image", "mimeType": "image/jpeg", "data": jpeg},
	}}, nil)
	path := s.waitIdle().Path
	shutdownServer(t, s)

	s2 := e.start(startOpt{})
	s2.call("session/open", map[string]any{"path": path}, nil)
	st := snapshotState(t, s2)
	if len(st.Items) == 0 || st.Items[0].Kind != "user" {
		t.Fatalf("reopened items: %+v", st.Items)
	}
	var refs []*protocol.ImageRef
	for _, a := range st.Items[0].Attachments {
		if a.Type == "image" {
			refs = append(refs, a.Image)
		}
	}
	if len(refs) != 2 || refs[0] == nil || refs[1] == nil || refs[0].Index != 0 || refs[1].Index != 1 || refs[0].Entry == "" || refs[0].Entry != refs[1].Entry {
		t.Fatalf("image attachments after reopen: %+v", st.Items[0].Attachments)
	}
	for i, want := range []protocol.SessionImageResult{{MimeType: "image/png", Data: png}, {MimeType: "image/jpeg", Data: jpeg}} {
		var got protocol.SessionImageResult
		s2.call("session/image", protocol.SessionImageParams{Entry: refs[i].Entry, Index: refs[i].Index}, &got)
		if got != want {
			t.Fatalf("session/image %d = %+v, want %+v", i, got, want)
		}
	}
	// Bad refs are the caller's error; the server keeps serving.
	for _, bad := range []map[string]any{
		{"entry": refs[0].Entry, "index": 2},
		{"entry": "no-such-entry", "index": 0},
		{"entry": "", "index": 0},
		{"entry": refs[0].Entry, "index": -1},
		{"entry": 3},
	} {
		err := s2.try("session/image", bad, nil)
		if err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(strings.ToLower(err.Error()), "invalid") {
			t.Fatalf("session/image %v: %v", bad, err)
		}
	}
	var again protocol.SessionImageResult
	s2.call("session/image", protocol.SessionImageParams{Entry: refs[1].Entry, Index: 1}, &again)
	if again.MimeType != "image/jpeg" {
		t.Fatalf("after bad params: %+v", again)
	}
}
