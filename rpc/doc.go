// Package rpc is pi-lsp's JSON-RPC wire core: JSON-RPC 2.0 over LSP base
// framing (Content-Length headers), on go.lsp.dev/jsonrpc2. It knows no
// agent: no harness, display, session, memory, compaction or MCP.
//
// A Server holds the method table (Register) and serves one client per Serve
// call (stdio, or a unix socket connection). Per-connection state lives in a
// *Client: the LSP lifecycle (initialize, initialized, shutdown, exit), the
// client's capabilities, requests in flight and their cancellation
// ($/cancelRequest), server-to-client requests (Client.Call) and
// notifications, window/logMessage and $/progress. An upper layer keeps its
// own per-connection state on the Client (SetValue, LoadOrStore; closed with
// the connection) and may route some connections' methods itself
// (Options.Route).
//
// Every request runs in its own goroutine, so a long request never blocks
// the read loop; everything written goes through one serialized writer,
// where every message is masked (egress) before it is framed. Malformed
// frames, bad JSON, oversized messages (MaxFrame, 16 MiB by default),
// unknown methods and bad params get JSON-RPC errors and the server keeps
// serving.
//
// The native agent methods live in package server, sharing a session
// between processes in package server's attach files. See
// docs/architecture.md and docs/protocol.md.
package rpc
