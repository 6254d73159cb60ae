package server

import (
	"context"
	"strconv"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/memory"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
)

func (a *agent) registerMemory(s *rpc.Server) {
	s.Register("memory/configure", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.MemoryConfigureParams) (any, error) {
		cur, err := h.MemoryShow(ctx)
		if err != nil {
			return nil, err
		}
		st := cur.Settings
		if p.Mode != "" {
			st.Mode = p.Mode
		}
		if p.ObserveTokens != nil {
			st.ObserveTokens = *p.ObserveTokens
		}
		if p.ReflectTokens != nil {
			st.ReflectTokens = *p.ReflectTokens
		}
		if p.Model != "" {
			st.Model = p.Model
		}
		if p.FailurePolicy != "" {
			st.FailurePolicy = p.FailurePolicy
		}
		if p.ShareTokenBudget != nil {
			st.ShareTokenBudget = p.ShareTokenBudget
		}
		info, err := h.ConfigureMemory(ctx, st)
		if err != nil {
			return nil, err
		}
		return protocol.MemoryConfigureResult{Settings: wireSettings(info.Settings), Budget: wireBudget(info.Budget), Notice: info.Notice}, nil
	}))
	s.Register("memory/show", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		v, err := h.MemoryShow(ctx)
		if err != nil {
			return nil, err
		}
		out := protocol.MemoryShowResult{Settings: wireSettings(v.Settings), Budget: wireBudget(v.Budget), Status: display.WireMemory(v.Status),
			Observations: v.Observations, CurrentTask: v.CurrentTask, SuggestedResponse: v.Suggested, Buffered: []protocol.MemoryChunk{}}
		for _, c := range v.Buffered {
			out.Buffered = append(out.Buffered, protocol.MemoryChunk{Seq: c.Seq, From: c.From, To: c.To, Tokens: c.Tokens, MessageTokens: c.MessageTokens, Messages: c.Messages})
		}
		return out, nil
	}))
}

func wireSettings(s memory.Settings) protocol.MemorySettings {
	return protocol.MemorySettings{Mode: s.Mode, ObserveTokens: s.ObserveTokens, ReflectTokens: s.ReflectTokens, Model: s.Model, FailurePolicy: s.FailurePolicy, ShareTokenBudget: s.ShareTokenBudget}
}

func wireBudget(b *memory.Budget) *protocol.MemoryBudget {
	if b == nil {
		return nil
	}
	return &protocol.MemoryBudget{Window: b.Window, ObserveTokens: b.Observe, ReflectTokens: b.Reflect, KeepTokens: b.Keep,
		BufferEveryTokens: b.BufferEvery, ReserveTokens: b.Reserve, Notice: b.Notice, ShareTokenBudget: b.Share}
}

// memoryProgress reports an observation, buffering or reflection as LSP
// work-done progress: begin at its start, end (with what it left) at its end.
func memoryProgress(c *rpc.Client, ev harness.Event) {
	if ev.Memory == nil || (ev.Summary != "start" && ev.Summary != "end") {
		return
	}
	titles := map[string]string{"buffer": "Observing (background)", "observe": "Observing", "activate": "Activating observations", "reflect": "Reflecting"}
	title := titles[ev.Reason]
	if title == "" {
		return
	}
	token := "memory-" + ev.Reason
	m := ev.Memory
	msg := fmtStatus(m)
	if ev.Summary == "start" || ev.Reason == "activate" {
		zero := 0
		_ = c.Progress(token, protocol.WorkProgress{Kind: "begin", Title: title, Message: msg, Percentage: &zero})
	}
	if ev.Summary == "end" {
		if ev.Error != "" {
			msg = "failed: " + ev.Error
		}
		_ = c.Progress(token, protocol.WorkProgress{Kind: "end", Message: msg})
	}
}

func fmtStatus(m *memory.Status) string {
	s := itoa(m.ObservedMessages) + " messages observed, " + itoa(m.ObservationTokens) + " observation tokens, " +
		itoa(m.BufferedChunks) + " chunks buffered (" + itoa(m.BufferedTokens) + " tokens)"
	if r := m.LastReflection; r != nil {
		s += ", last reflection " + itoa(r.TokensBefore) + "→" + itoa(r.Tokens)
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
