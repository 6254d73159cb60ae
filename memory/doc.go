// Package memory is observational memory, the alternative to compaction
// that a session chooses with memory/configure: instead of summarising old
// history once it overflows, an observer distils messages into a dated,
// prioritised observation log, and a reflector condenses that log when it
// grows too large (Mastra's observational memory, reimplemented).
//
//   - Settings and Budget: the mode, the observe / reflect thresholds scaled
//     to the model's window and clamped so that they always fit it, the
//     observer's model and the failure policy (settings.go).
//   - The observer's input and output: messages serialised with their tool
//     arguments and trimmed tool results, pi-lsp's control prompts left out,
//     huge messages cut into pieces; the <observations>, <current-task> and
//     <suggested-response> sections parsed back (input.go, parse.go).
//   - The reflector: the compression ladder, the size check and the
//     degenerate-output guard (reflector.go).
//   - The log: custom-entry records (buffered chunks, activations,
//     reflections) folded into a State with one cursor, the last message
//     entry the observations cover (state.go).
//   - The Engine: one writer per session that decides, before every model
//     call, what to activate (no model call), what to observe on the hot path
//     (only when buffering fell behind), and what to buffer or reflect in the
//     background (engine.go).
//   - The idle trigger: the provider's prompt-cache TTL (ttl.go).
//
// The package does no session I/O of its own: the caller hands it the
// branch's message entries and an Appender for its records. See
// docs/memory.md.
package memory
