package compaction

import (
	"errors"
	"testing"
)

// The table in docs/compaction.md is this table.
func TestBudgetFor(t *testing.T) {
	tests := []struct{ window, reserve, keep int }{
		{8192, 2048, 2048},
		{32768, 4096, 12288},
		{40960, 5120, 15360},
		{65536, 8192, 20000},
		{128000, 16384, 20000},
		{200000, 16384, 20000},
		{0, 16384, 20000},
		{4096, 2048, 0},
	}
	for _, tt := range tests {
		s := BudgetFor(tt.window, nil)
		if !s.Enabled || s.ReserveTokens != tt.reserve || s.KeepRecentTokens != tt.keep {
			t.Errorf("window %d: %+v, want reserve %d keep %d", tt.window, s, tt.reserve, tt.keep)
		}
		if tt.window >= 8192 && tt.window < LargeWindow {
			// After a compaction (summary up to reserve/2 + kept tail) about
			// half of window-reserve is free.
			free := s.Threshold(tt.window) - s.KeepRecentTokens - s.ReserveTokens/2
			if free*2 < s.Threshold(tt.window) {
				t.Errorf("window %d: only %d of %d free after compaction", tt.window, free, s.Threshold(tt.window))
			}
		}
	}
	o := BudgetFor(40960, &Settings{Enabled: false, ReserveTokens: 3000})
	if o.Enabled || o.ReserveTokens != 3000 || o.KeepRecentTokens != 15360 {
		t.Errorf("override: %+v", o)
	}
}

func TestShouldCompactAndTooSmall(t *testing.T) {
	s := Settings{Enabled: true, ReserveTokens: 5000, KeepRecentTokens: 15000}
	if ShouldCompact(35000, 40000, s) || !ShouldCompact(35001, 40000, s) {
		t.Error("threshold is contextTokens > window - reserve")
	}
	if ShouldCompact(99999, 0, s) {
		t.Error("unknown window must not trigger")
	}
	if ShouldCompact(39000, 40000, Settings{ReserveTokens: 5000}) {
		t.Error("disabled")
	}
	if TooSmall(40000, 35000, s) || !TooSmall(40000, 35001, s) || !TooSmall(4000, 0, s) || TooSmall(0, 1e6, s) {
		t.Error("TooSmall")
	}
	err := CheckFits(8000, 7000, s)
	if !errors.Is(err, ErrWindowTooSmall) || CheckFits(40000, 100, s) != nil {
		t.Errorf("CheckFits: %v", err)
	}
}
