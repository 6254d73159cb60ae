// Package outbox is one connection's typed queue of outgoing notifications,
// between the producers (the harness's event stream, an owner's socket)
// and the connection's single writer. It decides two things, on typed
// items and never on encoded bytes:
//
//   - What a slow client may lose. One rule per kind: token deltas (and job
//     output, and ACP's message and thought chunks: Chunk) merge with the
//     queued delta of their own stream once the client is MergeAt items
//     behind; display frames are dropped and the
//     writer resyncs the client from a snapshot; every other item (tool
//     calls, errors, agent_end, progress …) is kept, in order.
//   - Which streamed text waits. The end of a stream's text that could be
//     the start of a secret (Holder.HoldLen) is held per stream — the
//     subagent tool call(s) it runs under, the content index and the delta
//     kind — and goes out only into its own stream: in that stream's next
//     delta, or just before the event that ends the stream (its message's
//     end, its run's end, its subagent tool call's end). Another stream's
//     events never release it. The delta event whose text left the tail
//     waits with it (carrying the text that was safe when it came), so
//     every event is sent once.
//
// Ordering guarantee: every event is sent once; events are in order within
// each stream (and non-delta events in the order they came); a delta event
// waits at most until its stream's next delta or end, so other streams'
// events may pass it. The egress masks every message after
// this; the outbox only decides where text is cut, so that no secret is
// ever split across two messages.
package outbox
