// Package compaction keeps long sessions inside the model's context window.
//
// It is pi's compaction algorithm (pi 0.73.1, core/compaction) in Go, working
// on a branch of session entries given as []Item, root to leaf:
//
//   - token accounting: the last provider-reported usage plus an estimate of
//     the messages after it (Estimator, ContextTokens);
//   - budgets derived from the model's window (BudgetFor) and the trigger
//     (ShouldCompact, TooSmall);
//   - cheap relief before lossy relief: old tool outputs beyond the kept tail
//     are cut to head and tail (TrimToolOutputs, ApplyTrims, Plan);
//   - the cut point that keeps about KeepRecentTokens of recent history, never
//     at a tool result, with split turns (Prepare);
//   - the structured summary, incremental on later compactions, with the
//     files read and modified appended (Summarize, SerializeConversation);
//   - summaries of abandoned branches for tree navigation (PrepareBranch,
//     SummarizeBranch).
//
// The package does no I/O of its own: the caller (the harness) reads the
// branch from the session, runs the model through a Summarizer and appends
// the resulting compaction, branch_summary or custom entries. See
// docs/compaction.md for the rules and the budget table.
package compaction
