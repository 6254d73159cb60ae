package harness

import (
	"context"
	"fmt"
)

// waitFor blocks until done is closed or ctx is done. The context's error
// comes back wrapped with what was waited for (errors.Is still matches it).
func waitFor(ctx context.Context, done <-chan struct{}, what string) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
	}
}
