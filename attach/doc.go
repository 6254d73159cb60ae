// Package attach is the session socket's own protocol, below the native
// server: the $/pi-lsp/attach handshake (ProtocolVersion, Handshake on the
// attacher's side, ParseAttach on the owner's), the peer check (the same
// user only), and DialSession, the client a terminal command (pi-lsp exec
// --session, pi-lsp attach) follows a session's owner with. Serving a
// session to other processes, proxying to an owner and taking a session
// over drive a harness, and live in package server (attach*.go).
package attach
