// Package tools holds pi-lsp's built-in tools: read, write, edit, bash, grep,
// find and ls with pi's parameters and limits, plus the human-in-the-loop
// tools ask_user and submit_plan and the task_* tools that keep the live task
// list.
//
// A tool reaches the harness only through Host, a small back channel the
// harness implements and the model never sees. Without a Host (headless runs,
// clients without the capability) every tool still works and falls back to
// plain text. Tool failures are Results with IsError set, never Go errors or
// panics. Result.Display is the editor's copy of a result; the model's Content
// keeps the real values. Redactor says what a secret is; it masks them where
// data leaves the process (rpc's egress, RedactJSON), not in the tools.
package tools
