package harness

import (
	"context"
	"errors"
	"io/fs"

	"github.com/pi-lsp/pi-lsp/session"
)

// ErrorKind is what a harness or session error means to a front end; each
// front end (the native server, ACP) maps kinds to its own error codes.
type ErrorKind int

// The kinds of error Classify tells apart.
const (
	KindInternal   ErrorKind = iota // anything else
	KindBusy                        // the harness is not idle (*BusyError; Class.Phase)
	KindLocked                      // another process owns the session (*session.LockedError; Class.PID)
	KindNotSession                  // a file opened as a session is not one
	KindNotFound                    // a session, entry, model or file that does not exist
	KindNoModel                     // no usable model (the message says how to configure one)
	KindInvalid                     // a bad argument
	KindCancelled                   // the request's context was cancelled
)

// Class is an error's kind and the details its kind carries.
type Class struct {
	Kind  ErrorKind
	Phase Phase // KindBusy
	PID   int   // KindLocked
}

// Classify says what err means, in one order every front end shares: busy,
// locked, not a session, not found (before no model: model/set of an
// unknown model wraps both), no model, invalid, cancelled.
func Classify(err error) Class {
	var busy *BusyError
	var locked *session.LockedError
	switch {
	case err == nil:
		return Class{}
	case errors.As(err, &busy):
		return Class{Kind: KindBusy, Phase: busy.Phase}
	case errors.As(err, &locked):
		return Class{Kind: KindLocked, PID: locked.PID}
	case errors.Is(err, session.ErrNotSession):
		return Class{Kind: KindNotSession}
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrNoSession), errors.Is(err, session.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return Class{Kind: KindNotFound}
	case errors.Is(err, ErrNoModel):
		return Class{Kind: KindNoModel}
	case errors.Is(err, ErrInvalid):
		return Class{Kind: KindInvalid}
	case errors.Is(err, context.Canceled):
		return Class{Kind: KindCancelled}
	}
	return Class{Kind: KindInternal}
}
