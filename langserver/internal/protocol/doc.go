// Package protocol is the LSP type set of go.lsp.dev/protocol v0.12.0,
// copied verbatim (the type files and the Method constants; LICENSE
// beside them). go.lsp.dev/protocol's client and server glue is written
// against go.lsp.dev/jsonrpc2 v0.10's API and does not compile with the
// v1.0.1 this project uses, and the module proxy has no newer
// go.lsp.dev/protocol, so its package cannot be imported as is. The types
// are the library's, not hand-written: refresh them by copying the same
// files from a newer release.
package protocol
