package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/pi-lsp/pi-lsp/session"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Class
	}{
		{nil, Class{}},
		{errors.New("boom"), Class{Kind: KindInternal}},
		{fmt.Errorf("prompt: %w", &BusyError{Phase: PhaseTurn}), Class{Kind: KindBusy, Phase: PhaseTurn}},
		{fmt.Errorf("open: %w", &session.LockedError{PID: 42}), Class{Kind: KindLocked, PID: 42}},
		{fmt.Errorf("open /x: %w", session.ErrNotSession), Class{Kind: KindNotSession}},
		{ErrNoSession, Class{Kind: KindNotFound}},
		{fmt.Errorf("entry e1: %w", session.ErrNotFound), Class{Kind: KindNotFound}},
		{fmt.Errorf("read: %w", fs.ErrNotExist), Class{Kind: KindNotFound}},
		// model/set of an unknown model wraps both: not found wins.
		{fmt.Errorf("%w: %w", ErrNoModel, ErrNotFound), Class{Kind: KindNotFound}},
		{fmt.Errorf("%w: set OPENAI_API_KEY", ErrNoModel), Class{Kind: KindNoModel}},
		{fmt.Errorf("level: %w", ErrInvalid), Class{Kind: KindInvalid}},
		{fmt.Errorf("run: %w", context.Canceled), Class{Kind: KindCancelled}},
	} {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %+v, want %+v", tc.err, got, tc.want)
		}
	}
}
