package harness

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/internal/textcut"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
)

// Generated session titles: with Config.GenerateTitles, the first answer of
// an unnamed session is followed by one short model call that names the
// session (a session_info entry, as /name writes it), so session lists tell
// sessions that began alike apart.

// titleTimeout bounds the title call.
const titleTimeout = 30 * time.Second

// titlePrompt asks for the title; the conversation follows it.
const titlePrompt = "Write a short title (3 to 6 words) for the conversation below, naming its topic. Answer with the title only: no quotes, no punctuation at the end."

// titler runs the title calls in the background and stops them on Close.
type titler struct {
	mu     sync.Mutex
	wg     sync.WaitGroup
	closed bool
	cancel []context.CancelFunc
}

// start runs fn in the background unless the titler is stopped.
func (t *titler) start(fn func(ctx context.Context)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), titleTimeout)
	t.cancel = append(t.cancel, cancel)
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer cancel()
		fn(ctx)
	}()
}

// stop cancels the calls in flight and waits for them.
func (t *titler) stop() {
	t.mu.Lock()
	t.closed = true
	cs := t.cancel
	t.cancel = nil
	t.mu.Unlock()
	for _, c := range cs {
		c()
	}
	t.wg.Wait()
}

// maybeTitle starts the title call after a run that ended normally, when
// titles are on, the session has no name and its branch holds exactly one
// user prompt with an answer.
func (h *Harness) maybeTitle(ctx context.Context, model llm.Model, endReason EndReason) {
	if !h.cfg.GenerateTitles || endReason != EndStop || ctx.Err() != nil {
		return
	}
	s := h.currentSession()
	if s == nil || s.ReadOnly() || s.Name() != "" {
		return
	}
	msgs, err := h.contextMessages(ctx)
	if err != nil {
		return
	}
	var prompt, answer string
	users := 0
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.Role == llm.RoleUser:
			users++
			if users == 1 {
				prompt = userTypedText(*m)
			}
		case m.Role == llm.RoleAssistant && m.StopReason != llm.StopError && m.StopReason != llm.StopAborted:
			if t := strings.TrimSpace(m.Text()); t != "" {
				answer = t
			}
		}
	}
	if users != 1 || strings.TrimSpace(prompt) == "" || answer == "" {
		return
	}
	h.titles.start(func(ctx context.Context) { h.nameSession(ctx, s, model, prompt, answer) })
}

// nameSession makes the title call and names s with its answer, unless s
// was named meanwhile.
func (h *Harness) nameSession(ctx context.Context, s *session.Session, model llm.Model, prompt, answer string) {
	if model.MaxTokens <= 0 || model.MaxTokens > 32 {
		model.MaxTokens = 32
	}
	text := titlePrompt + "\n\n<user>\n" + textcut.Head(prompt, 2000) + "\n</user>\n<assistant>\n" + textcut.Head(answer, 2000) + "\n</assistant>"
	resp := h.cfg.Streamer.Stream(ctx, llm.Request{Model: model, Messages: []llm.Message{llm.UserText(text, h.now())}}, func(llm.Event) {})
	if resp.StopReason == llm.StopError || resp.StopReason == llm.StopAborted || ctx.Err() != nil {
		h.log.Info("session title not generated", "err", resp.ErrorMessage)
		return
	}
	title := cleanTitle(resp.Text())
	if title == "" || s.Name() != "" {
		return
	}
	if err := s.SetName(ctx, title); err != nil {
		h.log.Warn("name session", "err", err)
		return
	}
	if h.currentSession() == s {
		h.emit(Event{Type: EvSessionInfo, Name: title})
	}
}

// cleanTitle is the first line of a model's title answer without quotes,
// marks or a trailing full stop, at most 60 characters.
func cleanTitle(s string) string {
	s = strings.TrimSpace(strings.TrimPrefix(textcut.FirstLine(s), "Title:"))
	s = strings.Trim(s, "\"'`*#“”‘’ ")
	s = strings.TrimRight(s, ".。 ")
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60])
	}
	return s
}
