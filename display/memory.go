package display

import (
	"github.com/pi-lsp/pi-lsp/memory"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// WireMemory converts observational memory's status to its wire type.
func WireMemory(s memory.Status) protocol.MemoryStatus {
	out := protocol.MemoryStatus{Mode: s.Mode, ObservedMessages: s.ObservedMessages, ObservationTokens: s.ObservationTokens,
		BufferedChunks: s.BufferedChunks, BufferedTokens: s.BufferedTokens, UnobservedTokens: s.UnobservedTokens,
		ObserveTokens: s.ObserveTokens, ReflectTokens: s.ReflectTokens, Observing: s.Observing, Reflecting: s.Reflecting,
		ObserverCalls: s.ObserverCalls, ReflectorCalls: s.ReflectorCalls, LastError: s.LastError}
	if r := s.LastReflection; r != nil {
		out.LastReflection = &protocol.MemoryReflectionInfo{TokensBefore: r.TokensBefore, Tokens: r.Tokens, Level: r.Level, At: r.At}
	}
	return out
}

func cloneMemory(m *protocol.MemoryStatus) *protocol.MemoryStatus {
	if m == nil {
		return nil
	}
	c := *m
	if m.LastReflection != nil {
		r := *m.LastReflection
		c.LastReflection = &r
	}
	return &c
}

// setMemory replaces the memory field when it changed (one set op).
func (r *Reducer) setMemory(s *memory.Status) {
	if s == nil {
		return
	}
	w := WireMemory(*s)
	if old := r.st.Memory; old != nil && *old == w && old.LastReflection == nil && w.LastReflection == nil {
		return
	}
	r.st.Memory = &w
	r.set(path("memory"), w)
}
