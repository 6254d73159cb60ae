package session

import (
	"context"
	"errors"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// A chain of n messages, then two branches from the middle one.
func TestTreePageChainsAndBranches(t *testing.T) {
	ctx := context.Background()
	s := mustCreate(t)
	var ids []string
	for i := range 10 {
		m := user("q")
		if i%2 == 1 {
			m = assistant("a")
		}
		ids = append(ids, must[string](t)(s.AppendMessage(ctx, m)))
	}
	// Go back to ids[5] and answer differently: ids[5] has two children.
	if err := s.Navigate(ctx, ids[5]); err != nil {
		t.Fatal(err)
	}
	b1 := must[string](t)(s.AppendMessage(ctx, user("branch")))
	b2 := must[string](t)(s.AppendMessage(ctx, assistant("branch answer")))

	page := must[TreePageResult](t)(s.TreePage(ctx, TreeQuery{}))
	if len(page.Nodes) != 1 || page.Next != "" || page.LeafID != b2 {
		t.Fatalf("top page: %+v", page)
	}
	top := page.Nodes[0]
	// The header's model change, thinking level and the pi-lsp state entries
	// of Create come first; the run ends at the branch point ids[5].
	if top.Chain == nil || top.Chain.LastID != ids[5] || top.Chain.LastChildCount != 2 || top.ChildCount != 1 || !top.OnBranch {
		t.Fatalf("top node: %+v chain %+v", top, top.Chain)
	}
	below := must[TreePageResult](t)(s.TreePage(ctx, TreeQuery{Root: ids[5]}))
	if len(below.Nodes) != 2 || below.Nodes[0].ID != ids[6] || below.Nodes[1].ID != b1 {
		t.Fatalf("below the branch point: %+v", below.Nodes)
	}
	if below.Nodes[0].OnBranch || !below.Nodes[1].OnBranch || below.Nodes[1].Chain == nil || below.Nodes[1].Chain.LastID != b2 ||
		below.Nodes[0].Chain == nil || below.Nodes[0].Chain.Length != 4 || below.Nodes[0].ParentID != ids[5] {
		t.Fatalf("branches: %+v / %+v", below.Nodes[0], below.Nodes[1])
	}
	// Paging the two children one at a time.
	p1 := must[TreePageResult](t)(s.TreePage(ctx, TreeQuery{Root: ids[5], Limit: 1}))
	if len(p1.Nodes) != 1 || p1.Next == "" {
		t.Fatalf("page 1: %+v", p1)
	}
	p2 := must[TreePageResult](t)(s.TreePage(ctx, TreeQuery{Root: ids[5], Limit: 1, After: p1.Next}))
	if len(p2.Nodes) != 1 || p2.Next != "" || p2.Nodes[0].ID != b1 {
		t.Fatalf("page 2: %+v", p2)
	}
	// Depth 2 lists the branches below the top run in the same page.
	deep := must[TreePageResult](t)(s.TreePage(ctx, TreeQuery{Depth: 2}))
	if len(deep.Nodes) != 3 || deep.Nodes[1].ParentID != ids[5] {
		t.Fatalf("depth 2: %+v", deep.Nodes)
	}
	// The run's own entries, in pages.
	var run []FlatNode
	after := ""
	for {
		p := must[TreePageResult](t)(s.TreePage(ctx, TreeQuery{Chain: top.ID, Limit: 3, After: after}))
		run = append(run, p.Nodes...)
		if p.Next == "" {
			break
		}
		after = p.Next
	}
	if len(run) != top.Chain.Length || run[len(run)-1].ID != ids[5] || run[len(run)-1].ChildCount != 2 {
		t.Fatalf("chain of %d listed %d nodes, last %+v", top.Chain.Length, len(run), run[len(run)-1])
	}
	for _, q := range []TreeQuery{
		{Root: "nope"}, {After: "x"}, {After: "t1.0.other"}, {Limit: -1}, {Limit: MaxTreeLimit + 1}, {Depth: MaxTreeDepth + 1},
		{Chain: "nope"}, {Chain: top.ID, Root: ids[5]}, {Chain: top.ID, After: p1.Next}, {Root: ids[5], After: "t1.9." + ids[5]},
	} {
		if _, err := s.TreePage(ctx, q); !errors.Is(err, ErrBadTreeParam) {
			t.Errorf("%+v: %v, want ErrBadTreeParam", q, err)
		}
	}
}

// The usage of assistant messages is read while indexing.
func TestContextUsageAndTail(t *testing.T) {
	ctx := context.Background()
	s := mustCreate(t)
	a := assistant("one")
	a.Usage.Input, a.Usage.Output, a.Usage.TotalTokens = 100, 10, 110
	must[string](t)(s.AppendMessage(ctx, user("q1")))
	must[string](t)(s.AppendMessage(ctx, a))
	b := assistant("two")
	b.Usage.Input, b.Usage.Output, b.Usage.TotalTokens = 200, 20, 220
	must[string](t)(s.AppendMessage(ctx, user("q2")))
	must[string](t)(s.AppendMessage(ctx, b))
	c := assistant("aborted")
	c.StopReason = "aborted"
	c.Usage.Input = 5
	must[string](t)(s.AppendMessage(ctx, c))
	must[string](t)(s.AppendMessage(ctx, user("q3")))
	for _, s := range []*Session{s, mustOpen(t, s.Path(), true)} {
		sum, last, err := s.ContextUsage(ctx)
		if err != nil || sum.Input != 305 || sum.TotalTokens != 330 || last.TotalTokens != 220 {
			t.Fatalf("sum %+v last %+v (%v)", sum, last, err)
		}
		tail := must[Context](t)(s.ContextTail(ctx))
		if len(tail.Messages) != 3 || tail.Messages[0].Usage.TotalTokens != 220 {
			t.Fatalf("tail: %+v", tail.Messages)
		}
		slots := must[[]Slot](t)(s.ContextSlots(ctx))
		if len(slots) != 6 || !slots[0].User || slots[1].User || !slots[5].User {
			t.Fatalf("slots: %+v", slots)
		}
	}
}

// TestCostOfEveryBranch: Cost sums the recorded usage.cost of every
// assistant message in the file, on every branch, while ContextUsage's sum
// and last carry the current context's; both survive reopening the file.
func TestCostOfEveryBranch(t *testing.T) {
	ctx := context.Background()
	s := mustCreate(t)
	priced := func(text string, in, out float64) llm.Message {
		a := assistant(text)
		a.Usage.Input, a.Usage.Output, a.Usage.TotalTokens = 1000, 100, 1100
		a.Usage.Cost = llm.Cost{Input: in, Output: out, Total: in + out}
		return a
	}
	q1 := must[string](t)(s.AppendMessage(ctx, user("q1")))
	must[string](t)(s.AppendMessage(ctx, priced("one", 0.003, 0.0015)))
	must[string](t)(s.AppendMessage(ctx, user("q2")))
	must[string](t)(s.AppendMessage(ctx, priced("two", 0.006, 0.0030)))
	// Back to the first question: a second branch, with one more priced answer.
	if err := s.Navigate(ctx, q1); err != nil {
		t.Fatal(err)
	}
	must[string](t)(s.AppendMessage(ctx, priced("one again", 0.012, 0.0060)))
	unpriced := assistant("free")
	must[string](t)(s.AppendMessage(ctx, unpriced))
	near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
	for _, s := range []*Session{s, mustOpen(t, s.Path(), true)} {
		c := s.Cost()
		if !near(c.Input, 0.021) || !near(c.Output, 0.0105) || !near(c.Total, 0.0315) {
			t.Fatalf("whole-file cost %+v, want input 0.021 output 0.0105 total 0.0315", c)
		}
		sum, last, err := s.ContextUsage(ctx)
		if err != nil || !near(sum.Cost.Total, 0.018) || last.Cost != (llm.Cost{}) {
			t.Fatalf("context cost %+v, last %+v (%v)", sum.Cost, last.Cost, err)
		}
	}
}

// TestParseCost: odd, negative and missing cost values count 0.
func TestParseCost(t *testing.T) {
	for raw, want := range map[string]llm.Cost{
		`{"input":0.5,"output":1e-3,"cacheRead":0,"cacheWrite":2,"total":2.501}`: {Input: 0.5, Output: 0.001, CacheWrite: 2, Total: 2.501},
		`{"input":-1,"output":"x","total":null}`:                                 {},
		`null`:                                                                   {},
		``:                                                                       {},
	} {
		if got := parseCost([]byte(raw)); got != want {
			t.Errorf("parseCost(%q) = %+v, want %+v", raw, got, want)
		}
	}
}
