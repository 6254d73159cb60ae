package server

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
)

type textParams protocol.TextParams

func (p textParams) check() error {
	if strings.TrimSpace(p.Text) == "" {
		return rpc.ErrInvalidParams(`"text" is required and must not be empty`)
	}
	return nil
}

func (a *agent) registerAgent(s *rpc.Server) {
	s.Register("agent/prompt", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.PromptParams) (any, error) {
		if err := (textParams{p.Text}).check(); err != nil {
			return nil, err
		}
		var imgs []llm.ContentBlock
		for i, img := range p.Images {
			if _, err := base64.StdEncoding.DecodeString(img.Data); err != nil || !strings.HasPrefix(img.MimeType, "image/") {
				return nil, rpc.ErrInvalidParams("images[" + strconv.Itoa(i) + "] needs base64 data and an image/* mimeType")
			}
			imgs = append(imgs, llm.ContentBlock{Type: llm.BlockImage, Data: img.Data, MimeType: img.MimeType})
		}
		behavior, err := harness.ParseDelivery(p.StreamingBehavior)
		if err != nil {
			return nil, rpc.ErrInvalidParams(`"streamingBehavior" must be "steer", "followUp" or "interrupt"`)
		}
		var res []harness.ResourceRef
		for i, r := range p.Resources {
			if r.URI == "" {
				return nil, rpc.ErrInvalidParams("resources[" + strconv.Itoa(i) + "] needs a uri")
			}
			res = append(res, harness.ResourceRef{Server: r.Server, URI: r.URI})
		}
		d, err := h.Prompt(ctx, p.Text, harness.PromptOptions{Images: imgs, StreamingBehavior: behavior, Context: contextItems(p.Context), Resources: res})
		if err != nil {
			return nil, err
		}
		return protocol.PromptResult{Accepted: true, Delivery: string(d)}, nil
	}))
	s.Register("agent/steer", handle(a, func(ctx context.Context, h *harness.Harness, p textParams) (any, error) {
		if err := p.check(); err != nil {
			return nil, err
		}
		return empty{}, h.Steer(ctx, p.Text)
	}))
	s.Register("agent/followUp", handle(a, func(ctx context.Context, h *harness.Harness, p textParams) (any, error) {
		if err := p.check(); err != nil {
			return nil, err
		}
		return empty{}, h.FollowUp(ctx, p.Text)
	}))
	s.Register("agent/interrupt", handle(a, func(ctx context.Context, h *harness.Harness, p textParams) (any, error) {
		if err := p.check(); err != nil {
			return nil, err
		}
		dropped, err := h.Interrupt(ctx, p.Text)
		return protocol.DraftsResult{ReturnedDrafts: dropped}, err
	}))
	s.Register("agent/abort", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		return protocol.DraftsResult{ReturnedDrafts: h.AbortDrafts()}, nil
	}))
	s.Register("agent/bash", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.BashParams) (any, error) {
		if strings.TrimSpace(p.Command) == "" {
			return nil, rpc.ErrInvalidParams(`"command" is required`)
		}
		return wrapResult(toBashResult)(h.Bash(ctx, p.Command, p.ExcludeFromContext))
	}))
}
