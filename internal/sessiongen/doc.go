// Package sessiongen writes large, realistic pi v3 session files for
// benchmarks: coding-agent turns (user prompt, assistant thinking and tool
// calls, tool results carrying file contents, a final answer), periodic
// compactions, model and thinking changes, pi-lsp state entries, labels and
// abandoned branches with branch summaries. Output is deterministic for a
// given seed.
package sessiongen
