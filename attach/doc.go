// Package attach is how several pi-lsp processes share one session. The
// process holding a session's write lock is its owner: a Hub serves the
// session on a unix socket (the $/pi-lsp/attach handshake with its
// ProtocolVersion, the same-user peer check), accepts attached processes
// as more connections of the owner's rpc.Server, asks every client its
// questions (FanOut) and hands the session over when the owner leaves.
// An attached process runs a Link per editor connection: it proxies the
// editor to the owner, queues the owner's notifications on an outbox, and
// when the owner goes takes the session over or attaches to whoever did.
// DialSession is the same client for a terminal command (pi-lsp exec
// --session, pi-lsp attach).
//
// The package knows no harness: what it needs of the host process is the
// Session interface (the hub's session) and Host (a link's local side),
// both implemented by package server.
package attach
