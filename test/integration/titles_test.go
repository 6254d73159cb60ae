package integration

import (
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

type listedSession struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	LastMessage string `json:"lastMessage"`
	Current     bool   `json:"current"`
}

func (s *server) currentListed() listedSession {
	s.t.Helper()
	var list struct {
		Sessions []listedSession `json:"sessions"`
	}
	s.call("session/list", map[string]any{}, &list)
	for _, it := range list.Sessions {
		if it.Current {
			return it
		}
	}
	s.t.Fatalf("no current session in %+v", list.Sessions)
	return listedSession{}
}

// With session.generateTitle, the first answer of an unnamed session is
// followed by one title call, whose answer (cleaned) names the session; a
// later prompt makes no second call, and session/list gives the last
// prompt beside the title. Without the setting no title call is made.
func TestGeneratedSessionTitle(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "short title", Text: "\"Greeting the new agent.\""},
		{Match: "hi, who are you?", Text: "I am a coding agent."},
		{Match: "and what can you do?", Text: "Edit files."},
	})
	e.userSettings(`{"session": {"generateTitle": true}}`)
	s := e.start(startOpt{})
	s.prompt("hi, who are you?")
	s.waitIdle()
	s.waitFor("the generated title", func() bool { return s.currentListed().Name != "" })
	if got := s.currentListed(); got.Name != "Greeting the new agent" || got.Title != "Greeting the new agent" {
		t.Fatalf("title: %+v", got)
	}
	s.prompt("and what can you do?")
	s.waitIdle()
	if got := s.currentListed(); got.LastMessage != "and what can you do?" {
		t.Fatalf("lastMessage: %+v", got)
	}
	titleCalls := 0
	for _, r := range e.llm.Requests() {
		if strings.Contains(string(r), "short title") {
			titleCalls++
		}
	}
	if titleCalls != 1 {
		t.Fatalf("title calls: %d, want 1", titleCalls)
	}
	if !strings.Contains(s.allNotifications(), "Greeting the new agent") {
		t.Fatalf("the display was not told the new name")
	}
}

func TestNoTitleCallByDefault(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "hello", Repeat: true}})
	s := e.start(startOpt{})
	s.prompt("hi, who are you?")
	s.waitIdle()
	// A second prompt on the same connection orders after any title call.
	s.prompt("second")
	s.waitIdle()
	if n := len(e.llm.Requests()); n != 2 {
		t.Fatalf("model requests: %d, want 2 (no title call)", n)
	}
	if got := s.currentListed(); got.Name != "" || got.Title != "hi, who are you?" || got.LastMessage != "second" {
		t.Fatalf("listed: %+v", got)
	}
}
