// Package skills loads what shapes the model's instructions: skills
// (Markdown files that teach the agent a reusable way of working), prompt
// templates (slash commands that expand into a prompt), the AGENTS.md /
// CLAUDE.md context files, and the system prompt built from all of them on
// every turn.
//
// It follows pi's skills and prompt-template loaders (npm
// @mariozechner/pi-coding-agent 0.73.1): the same locations, discovery rules,
// frontmatter fields, validation and prompt texts. Every problem found while
// loading is a Diagnostic returned with the result, never a failed load. All
// file access goes through a small read-only FS interface that env.FileSystem
// satisfies; only Watch, which needs the local kernel's fsnotify, touches the
// disk directly.
package skills
