package llm

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	c := NewClient(ClientOptions{RetryBaseDelay: time.Second, MaxRetryDelay: 5 * time.Second})
	for attempt, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second} {
		if got := c.backoff(attempt); got != want {
			t.Errorf("backoff(%d) = %s, want %s", attempt, got, want)
		}
	}
	if got := c.backoff(1000); got != 5*time.Second {
		t.Errorf("backoff(1000) = %s", got)
	}
}
