// Package pitest runs the real pi (@mariozechner/pi-coding-agent 0.73.1,
// installed by `npm ci --prefix test/pi`) for interoperability tests: it
// finds the binary, gives it a private HOME whose models.json points at a
// local fake server, drives `pi --mode rpc`, and evaluates pi's own
// session code (buildSessionContext) on a file through node.
//
// When pi is not installed the helpers skip the test, unless $CI is set, in
// which case the test fails: CI must run the interop tests.
package pitest
