// Package llmtest is a scripted fake OpenAI-compatible Chat Completions
// server for tests. It streams text, reasoning, tool calls (parallel ones
// included) and usage exactly as real providers frame them, and can answer
// with HTTP errors, drop a stream, send a malformed chunk or stall, so that
// every path of a streaming client and of the harness above it can be driven
// without a network.
//
// A script is an ordered list of [Response]. Each request takes the first
// unconsumed response whose Match (if set) is a substring of the raw request
// body; responses with Repeat are never consumed. When nothing matches the
// server answers 500 with "fakellm: script exhausted". Every request body is
// recorded ([Server.Requests], or GET /requests as a JSON array) and the
// script can be extended at run time ([Server.Append], or POST /script with a
// JSON array of responses), so out-of-process tests (cmd/fakellm) can drive
// it too.
//
// llmtest imports no other pi-lsp package.
package llmtest
