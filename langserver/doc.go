// Package langserver is pi-lsp as an LSP client: it starts the language
// servers of a workspace itself (gopls, typescript-language-server,
// pyright-langserver, rust-analyzer, clangd, or those of the settings),
// speaks LSP to them over stdio with go.lsp.dev/protocol's types on
// go.lsp.dev/jsonrpc2, keeps the files the agent changed in sync with
// didOpen/didChange/didSave, collects what they publish with
// textDocument/publishDiagnostics, and asks them for definitions,
// references, hovers, symbols and rename previews.
//
// It serves runs without an editor that can answer (pi-lsp exec, ACP, an
// editor without the diagnostics capability). A Manager is one workspace
// root: each server starts once, in the background, restarts once after a
// crash and is then given up on; Close shuts every server down and leaves
// no process behind.
package langserver
