package session

import (
	"context"
	"reflect"
	"testing"
)

// recentBySlots is RecentContext computed the long way: every slot of
// ContextSlots, then ContextMessages of the chosen tail.
func recentBySlots(t *testing.T, s *Session, maxMsgs, maxBytes int) Recent {
	t.Helper()
	ctx := context.Background()
	slots, err := s.ContextSlots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, size, k := 0, 0, len(slots)
	for k > 0 {
		j := k - 1
		for j > 0 && !slots[j].User {
			j--
		}
		ts := 0
		for _, sl := range slots[j:k] {
			ts += sl.Bytes
		}
		if n > 0 && (n+k-j > maxMsgs || size+ts > maxBytes) {
			break
		}
		n, size, k = n+k-j, size+ts, j
		if n >= maxMsgs {
			break
		}
	}
	ids := make([]string, 0, len(slots)-k)
	for _, sl := range slots[k:] {
		ids = append(ids, sl.ID)
	}
	msgs, mids, err := s.ContextMessages(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	out := Recent{Messages: msgs, EntryIDs: mids}
	if k > 0 {
		out.Older, out.Before = k, slots[k].ID
	}
	return out
}

// TestRecentContextMatchesTheSlots: on a session with compactions and
// branches, the tail RecentContext reads is the one ContextSlots and
// ContextMessages give, for bounds that cut by count, by bytes, and not
// at all.
func TestRecentContextMatchesTheSlots(t *testing.T) {
	s := mustOpen(t, bigSession(t), true)
	for _, b := range []struct{ msgs, bytes int }{{200, 512 << 10}, {1, 1}, {7, 1 << 30}, {1 << 30, 20 << 10}, {1 << 30, 1 << 40}} {
		got, err := s.RecentContext(context.Background(), b.msgs, b.bytes)
		if err != nil {
			t.Fatal(err)
		}
		want := recentBySlots(t, s, b.msgs, b.bytes)
		if len(got.Messages) == 0 {
			t.Fatalf("bounds %v: no messages", b)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("bounds %v: got %d messages, older %d before %q; want %d, older %d before %q",
				b, len(got.Messages), got.Older, got.Before, len(want.Messages), want.Older, want.Before)
		}
	}
}

// TestRecentContextOfAnEmptySession: nothing, and nothing older.
func TestRecentContextOfAnEmptySession(t *testing.T) {
	s, err := Create(context.Background(), t.TempDir(), "/w", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.RecentContext(context.Background(), 200, 512<<10)
	if err != nil || len(got.Messages) != 0 || got.Older != 0 || got.Before != "" {
		t.Fatalf("got %+v, %v", got, err)
	}
}
