package harness

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// subagentRun counts the subagent calls at the head of calls (when the
// tool is offered): an assistant message's consecutive subagent calls run
// concurrently, under the subagents.maxConcurrent cap.
func subagentRun(calls []llm.ContentBlock, byName map[string]tools.Tool) int {
	if _, ok := byName[tools.SubagentToolName]; !ok {
		return 0
	}
	n := 0
	for _, c := range calls {
		if c.Name != tools.SubagentToolName {
			break
		}
		n++
	}
	return n
}

// slotHeld marks a context whose subagent call holds its slot already.
type slotHeld struct{}

// executeConcurrent runs calls (all subagent calls) at once and records
// each result as it comes in; it returns when every call has its result.
func (h *Harness) executeConcurrent(ctx context.Context, x *host, byName map[string]tools.Tool, calls []llm.ContentBlock) bool {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex // one result recorded at a time
		term bool
		sem  = h.subagentSem()
	)
	for _, c := range calls {
		if ctx.Err() != nil {
			h.recordToolResult(context.Background(), c, cancelledResult(endReasonOf(ctx)))
			continue
		}
		call := tools.Call{ID: c.ID, Name: c.Name, Args: c.Arguments}
		if len(call.Args) == 0 {
			call.Args = json.RawMessage("{}")
		}
		h.emit(Event{Type: EvToolStart, ToolCallID: c.ID, ToolName: c.Name, Args: call.Args})
		// Slots are taken in call order: past the cap, the later calls wait.
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			h.recordToolResult(context.Background(), c, cancelledResult(endReasonOf(ctx)))
			continue
		}
		wg.Add(1)
		go func(c llm.ContentBlock, call tools.Call) {
			defer wg.Done()
			defer func() { <-sem }()
			res, t := h.runOneTool(context.WithValue(ctx, slotHeld{}, true), x, byName, call)
			mu.Lock()
			defer mu.Unlock()
			term = term || t
			h.recordToolResult(context.Background(), c, res)
		}(c, call)
	}
	wg.Wait()
	return term
}
