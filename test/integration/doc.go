// Package integration drives the real pi-lsp binary over stdio, gopls
// style: a fake editor (rpctest.Client) speaks LSP framing to the process,
// and the scripted fake LLM (llmtest) answers its model calls.
package integration
