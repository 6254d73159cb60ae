// Package server is pi-lsp's native agent server: the method handlers of
// docs/protocol.md (methods_*.go) over a harness, on the rpc wire core.
//
// NewAgentServer builds an *rpc.Server whose initialize builds a harness for
// the connection. Each connection gets its own display reducer and
// scheduler, pushed as display/state frames, and, when it asked,
// harness/event notifications (display.go, Pusher); the conversions from
// harness and session types to protocol's wire types are in convert*.go.
// A session opened by another pi-lsp process is attached to over the
// session's unix socket (attach*.go): the owner serves it to followers,
// and a follower takes it over when the owner leaves.
package server
