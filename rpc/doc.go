// Package rpc is pi-lsp's native protocol server core: JSON-RPC 2.0 over LSP
// base framing (Content-Length headers), on go.lsp.dev/jsonrpc2.
//
// A Server holds the method table (Register) and serves one client per Serve
// call (stdio, or a unix socket connection). Per-connection state lives in a
// *Client: the LSP lifecycle (initialize, initialized, shutdown, exit), the
// client's capabilities, requests in flight and their cancellation
// ($/cancelRequest), server-to-client requests (Client.Call) and
// notifications, window/logMessage, $/progress, and the display push: each
// client gets its own display.Scheduler and receives display/state frames
// (and, when it asked, raw harness/event notifications).
//
// Every request runs in its own goroutine, so a long request never blocks
// the read loop; everything written goes through one serialized writer.
// Malformed frames, bad JSON, oversized messages (MaxFrame, 16 MiB by
// default), unknown methods and bad params get JSON-RPC errors and the
// server keeps serving.
//
// The method handlers that drive the harness live in this package's
// methods_*.go files; this core knows nothing of them. See
// docs/architecture.md and docs/protocol.md.
package rpc
