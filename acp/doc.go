// Package acp serves pi-lsp as an Agent Client Protocol (ACP v1) agent:
// JSON-RPC 2.0 as newline-delimited JSON on stdio, built on
// github.com/coder/acp-go-sdk, for Zed, the JetBrains IDEs, Emacs
// agent-shell and the ACP Neovim plugins.
//
// It is a second adapter over the same harness as rpc: one harness per ACP
// session, its events translated into session/update notifications
// (message and thought chunks coalesced on the display scheduler's
// windows), its approval chain's "ask" turned into
// session/request_permission, and its file system routed through the
// client's fs/read_text_file and fs/write_text_file. Every outgoing line
// passes one egress step that masks secrets. Nothing below acp imports it.
package acp
