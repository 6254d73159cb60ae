// Package protocol declares the native wire's types: every params, result,
// notification, server->client request, display-state type and op that pi-lsp
// sends or receives over LSP-framed JSON-RPC. It imports no other pi-lsp
// package; rpc converts harness, display, session and skills values into
// these types at the boundary, and only rpc and acp marshal onto a wire.
package protocol

// The client types are generated from this package: TypeScript for the VS
// Code extension and a JSON Schema for the Neovim and Node tests
// (protocol/internal/gen; a test fails when they are stale).
//
//go:generate go run ./internal/gen
