// Package display folds ordered harness events into one DisplayState, the
// coalesced picture an editor draws (the second seed's display state), and
// schedules it to each client as versioned diff frames.
//
// A Reducer owns the state of one harness. Apply folds one harness.Event and
// records what changed as wire ops (set, append, push, delete at a JSON path,
// exactly as docs/protocol.md describes), so producing a frame never needs a
// deep compare; streamed text is always an append. Each client attaches its
// own Scheduler, which batches non-urgent ops (250 ms debounce, 500 ms cap),
// flushes urgent ones at once, numbers its frames and queues them for a
// writer that may be slow. A frame handed out is never mutated again.
//
// display imports harness and llm for their types only; it knows nothing of
// the wire transport.
package display
