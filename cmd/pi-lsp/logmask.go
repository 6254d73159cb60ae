package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/pi-lsp/pi-lsp/tools"
)

// maskHandler masks secrets in every log record before its handler formats
// it: the message and each attribute's decoded value (strings, errors,
// Stringers and any other value as printed), as the wire's egress masks
// decoded JSON values. stderr is where a server's logs leave the process
// (an editor's output panel, a CI log).
type maskHandler struct {
	inner slog.Handler
	red   *atomic.Pointer[tools.Redactor] // shared by the handlers derived from one logger
}

// newMaskHandler wraps inner with red.
func newMaskHandler(inner slog.Handler, red *tools.Redactor) *maskHandler {
	p := new(atomic.Pointer[tools.Redactor])
	p.Store(red)
	return &maskHandler{inner: inner, red: p}
}

// setLogMask makes log mask with red from now on (auth.json's keys are
// known only once the logger exists). A logger of another kind is left as
// it is.
func setLogMask(log *slog.Logger, red *tools.Redactor) {
	if h, ok := log.Handler().(*maskHandler); ok {
		h.red.Store(red)
	}
}

func (h *maskHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *maskHandler) Handle(ctx context.Context, rec slog.Record) error {
	red := h.red.Load()
	out := slog.NewRecord(rec.Time, rec.Level, red.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(maskAttr(red, a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *maskHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := h.red.Load()
	masked := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		masked[i] = maskAttr(red, a)
	}
	return &maskHandler{inner: h.inner.WithAttrs(masked), red: h.red}
}

func (h *maskHandler) WithGroup(name string) slog.Handler {
	return &maskHandler{inner: h.inner.WithGroup(name), red: h.red}
}

// maskAttr masks the value of a.
func maskAttr(red *tools.Redactor, a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, red.Redact(v.String()))
	case slog.KindGroup:
		g := v.Group()
		masked := make([]any, len(g))
		for i, ga := range g {
			masked[i] = maskAttr(red, ga)
		}
		return slog.Group(a.Key, masked...)
	case slog.KindAny:
		var s string
		switch x := v.Any().(type) {
		case error:
			s = x.Error()
		case fmt.Stringer:
			s = x.String()
		case []byte:
			s = string(x)
		default:
			s = fmt.Sprintf("%+v", x)
		}
		if m := red.Redact(s); m != s {
			return slog.String(a.Key, m)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
