package session

import (
	"context"
	"testing"
)

func TestCountOnBranch(t *testing.T) {
	ctx := context.Background()
	s, err := Create(ctx, t.TempDir(), "/w", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first, _ := s.AppendCompaction(ctx, "one", "", 10, nil, false)
	if _, err := s.AppendCompaction(ctx, "two", "", 20, nil, false); err != nil {
		t.Fatal(err)
	}
	if n := s.CountOnBranch("compaction"); n != 2 {
		t.Fatalf("two compactions on the branch, counted %d", n)
	}
	if err := s.Navigate(ctx, first); err != nil {
		t.Fatal(err)
	}
	if n := s.CountOnBranch("compaction"); n != 1 {
		t.Fatalf("after moving the leaf back: %d", n)
	}
}
