package memory

import (
	"errors"
	"testing"
	"time"
)

func TestBudgetForScalesAndClamps(t *testing.T) {
	b := BudgetFor(200000, Settings{Mode: ModeObservational})
	if b.Observe != 30000 || b.Reflect != 40000 || b.Notice != "" {
		t.Fatalf("200k window: %+v, want Mastra's 30000/40000", b)
	}
	if b.BufferEvery != 6000 || b.Keep != 6000 {
		t.Fatalf("200k window: buffer every %d, keep %d; want 20%% of 30000", b.BufferEvery, b.Keep)
	}
	b = BudgetFor(128000, Settings{})
	if b.Observe != 30000 || b.Reflect != 40000 {
		t.Fatalf("128k window: %+v", b)
	}
	b = BudgetFor(40000, Settings{})
	if b.Observe != 9375 || b.Reflect != 12500 || b.Notice != "" {
		t.Fatalf("40k window: %+v, want 9375/12500 (proportional)", b)
	}
	// Given values that do not fit are clamped, with a notice.
	b = BudgetFor(40000, Settings{ObserveTokens: 30000, ReflectTokens: 40000})
	if b.Notice == "" || b.Observe >= 30000 || b.Reflect >= 40000 {
		t.Fatalf("oversized thresholds not clamped: %+v", b)
	}
	for _, w := range []int{8000, 16000, 32000, 40000, 64000, 100000, 128000, 1000000} {
		for _, s := range []Settings{{}, {ObserveTokens: 1 << 30, ReflectTokens: 1 << 30}, {ObserveTokens: 5000}} {
			b := BudgetFor(w, s)
			if got := int(BlockFactor*float64(b.Observe+b.Reflect)) + b.Reserve; got > w {
				t.Errorf("window %d, %+v: observe %d + reflect %d (x%.1f) + reserve %d = %d, over the window", w, s, b.Observe, b.Reflect, BlockFactor, b.Reserve, got)
			}
			if b.Keep > b.Observe || b.BufferEvery <= 0 {
				t.Errorf("window %d: keep %d, buffer every %d, observe %d", w, b.Keep, b.BufferEvery, b.Observe)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	good := []Settings{{Mode: "compaction"}, {Mode: "observational", ObserveTokens: 1000, ReflectTokens: 2000, Model: "fake/m2", FailurePolicy: "warn"}}
	for _, s := range good {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	bad := []Settings{{}, {Mode: "summary"}, {Mode: "observational", ObserveTokens: -1}, {Mode: "observational", ReflectTokens: -5},
		{Mode: "observational", FailurePolicy: "ignore"}, {Mode: "observational", Model: "nomodel"}}
	for _, s := range bad {
		if err := s.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: got %v, want ErrInvalid", s, err)
		}
	}
	if (Settings{}).Policy() != PolicyThrow {
		t.Error("the default failure policy is not throw")
	}
}

func TestCacheTTL(t *testing.T) {
	cases := []struct {
		provider, model string
		want            time.Duration
	}{
		{"anthropic", "claude-sonnet-4-5", 5 * time.Minute},
		{"openai", "gpt-4o", 5 * time.Minute},
		{"openai", "gpt-4.1-mini", 5 * time.Minute},
		{"openai", "gpt-5", 5 * time.Minute},
		{"openai", "gpt-5.4-mini", 5 * time.Minute},
		{"openai", "gpt-5.5", time.Hour},
		{"openai", "o3", time.Hour},
		{"xai", "grok-4", 5 * time.Minute},
		{"openrouter", "anthropic/claude", 5 * time.Minute},
		{"deepseek", "deepseek-chat", time.Hour},
		{"groq", "llama-3.3-70b", 2 * time.Hour},
		{"google", "gemini-2.5-pro", 24 * time.Hour},
		{"ollama", "qwen3", 5 * time.Minute},
	}
	for _, c := range cases {
		if got := CacheTTL(c.provider, c.model, 0); got != c.want {
			t.Errorf("%s/%s: %v, want %v", c.provider, c.model, got, c.want)
		}
	}
	if got := CacheTTL("anthropic", "x", 42*time.Second); got != 42*time.Second {
		t.Errorf("override ignored: %v", got)
	}
}

// TestSharedBudget: with shareTokenBudget (the default) the observe
// threshold grows into the reflect budget the log leaves unused, never
// below the base, and raw history plus log still fit the window; off, the
// base threshold holds.
func TestSharedBudget(t *testing.T) {
	b := BudgetFor(40000, Settings{Mode: ModeObservational})
	if !b.Share {
		t.Fatal("shareTokenBudget is not on by default")
	}
	if s := b.Shared(0); s.Observe != 9375+12500 || s.Keep != int(float64(s.Observe)*KeepFraction) || s.BufferEvery != b.BufferEvery {
		t.Fatalf("empty log: %+v", s)
	}
	if s := b.Shared(10000); s.Observe != 9375+2500 {
		t.Fatalf("10k log: observe %d, want %d", s.Observe, 9375+2500)
	}
	if s := b.Shared(20000); s.Observe != 9375 || s.Keep != b.Keep {
		t.Fatalf("a log past the reflect budget: %+v, want the base threshold", s)
	}
	for _, log := range []int{0, 5000, 12500, 15000} {
		s := b.Shared(log)
		if got := int(BlockFactor*float64(s.Observe)) + min(log, int(BlockFactor*float64(b.Reflect))) + b.Reserve; got > b.Window {
			t.Errorf("log %d: raw %d (x%.1f) + log + reserve %d = %d, over the window", log, s.Observe, BlockFactor, b.Reserve, got)
		}
	}
	off := false
	b = BudgetFor(40000, Settings{Mode: ModeObservational, ShareTokenBudget: &off})
	if s := b.Shared(0); b.Share || s.Observe != 9375 {
		t.Fatalf("shareTokenBudget false: %+v", s)
	}
}
