package memory

import (
	"context"
	"fmt"

	"github.com/pi-lsp/pi-lsp/llm"
)

// reflectIfNeeded starts a background reflection once the log passes the
// reflect threshold, and blocks on it (or reflects on the hot path) only
// when the log passes BlockFactor times the threshold.
func (e *Engine) reflectIfNeeded(ctx context.Context, observer llm.Model, b Budget) error {
	e.mu.Lock()
	tokens := e.st.Tokens()
	if tokens < b.Reflect || len(e.st.Active) == 0 {
		e.mu.Unlock()
		return nil
	}
	if e.refDone == nil && e.ctx.Err() == nil {
		e.startReflectionLocked(observer, b)
	}
	done := e.refDone
	e.mu.Unlock()
	if tokens < b.BlockReflect() {
		return nil
	}
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	e.mu.Lock()
	tokens = e.st.Tokens()
	e.mu.Unlock()
	if tokens < b.BlockReflect() {
		return nil
	}
	// The background reflection failed: once more on the hot path.
	e.emit(Event{Kind: "reflect", Phase: "start", Reason: "sync"})
	e.mu.Lock()
	text, through, before := e.st.Text(), e.st.Active[len(e.st.Active)-1].Seq, e.st.Tokens()
	e.mu.Unlock()
	err := e.reflectAndCommit(ctx, observer, b, text, through, before)
	ev := Event{Kind: "reflect", Phase: "end", Reason: "sync"}
	if err != nil {
		ev.Error = err.Error()
	}
	e.emit(ev)
	if err != nil {
		return fmt.Errorf("observational memory: the reflector failed (the observations are unchanged): %w", err)
	}
	return nil
}

func (e *Engine) startReflectionLocked(observer llm.Model, b Budget) {
	text, through, before := e.st.Text(), e.st.Active[len(e.st.Active)-1].Seq, e.st.Tokens()
	done := make(chan struct{})
	e.refDone = done
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.emit(Event{Kind: "reflect", Phase: "start"})
		err := e.reflectAndCommit(e.ctx, observer, b, text, through, before)
		e.mu.Lock()
		e.refDone = nil
		close(done)
		e.mu.Unlock()
		ev := Event{Kind: "reflect", Phase: "end"}
		if err != nil {
			ev.Error = err.Error()
		}
		e.emit(ev)
	}()
}

// reflectAndCommit condenses text (the log through chunk through) and
// records the reflection. Chunks activated while the reflector ran have
// higher sequence numbers: they stay after the reflection, none is lost.
func (e *Engine) reflectAndCommit(ctx context.Context, observer llm.Model, b Budget, text string, through, before int) error {
	out, level, calls, err := Reflect(ctx, e.cfg.Streamer, observer, text, before, max(b.Reflect/2, 1), e.cfg.Count, e.cfg.Now())
	e.mu.Lock()
	defer e.mu.Unlock()
	e.refCalls += calls
	if err != nil {
		e.lastErr = err.Error()
		e.cfg.Logger.Warn("memory: reflection", "err", err)
		return err
	}
	r := Reflection{Text: out, Through: through, Tokens: e.cfg.Count(out), TokensBefore: before, Level: level, Created: e.cfg.Now().UnixMilli()}
	next := e.st.Clone()
	if err := next.reflect(r); err != nil {
		return err
	}
	if _, err := e.cfg.Session.AppendCustom(context.WithoutCancel(ctx), CustomReflection, r); err != nil {
		return fmt.Errorf("memory: record reflection: %w", err)
	}
	e.st = next
	return nil
}
