package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// registerImage adds session/image: the bytes of an image a user message of
// the current session holds, named by an attachment's ImageRef. States
// carry only the ref; an editor asks for a picture when it shows one.
func (a *agent) registerImage(s *rpc.Server) {
	s.Register("session/image", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.SessionImageParams) (any, error) {
		if p.Entry == "" {
			return nil, rpc.ErrInvalidParams(`"entry" is required`)
		}
		if p.Index < 0 {
			return nil, rpc.ErrInvalidParams(`"index" must be 0 or more`)
		}
		msgs, _, err := h.DisplayMessages(ctx, []string{p.Entry})
		if errors.Is(err, session.ErrNotFound) {
			return nil, rpc.ErrInvalidParams(fmt.Sprintf("no entry %q in the current session", p.Entry))
		}
		if err != nil {
			return nil, fmt.Errorf("session/image: %w", err)
		}
		if len(msgs) == 0 {
			return nil, rpc.ErrInvalidParams(fmt.Sprintf("no entry %q in the current session", p.Entry))
		}
		if img, ok := nthImage(&msgs[0], p.Index); ok {
			return protocol.SessionImageResult{MimeType: img.MimeType, Data: img.Data}, nil
		}
		return nil, rpc.ErrInvalidParams(fmt.Sprintf("entry %q has no image %d", p.Entry, p.Index))
	}))
}

// nthImage is the i-th image block (from 0) of a user message.
func nthImage(m *llm.Message, i int) (llm.ContentBlock, bool) {
	if m.Role != llm.RoleUser {
		return llm.ContentBlock{}, false
	}
	for _, c := range m.Content {
		if c.Type != llm.BlockImage {
			continue
		}
		if i == 0 {
			return c, true
		}
		i--
	}
	return llm.ContentBlock{}, false
}
