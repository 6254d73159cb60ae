package harness

import "testing"

func TestOverflowCount(t *testing.T) {
	for msg, want := range map[string]int{
		"This model's maximum context length is 40000 tokens. However, your messages resulted in 47604 tokens.": 47604,
		"prompt is too long: 212345 tokens > 200000 maximum":                                                    212345,
		"context_length_exceeded":                0,
		"maximum context length is 40000 tokens": 0,
	} {
		if got := overflowCount(msg, 40000); got != want {
			t.Errorf("overflowCount(%q) = %d, want %d", msg, got, want)
		}
	}
}
