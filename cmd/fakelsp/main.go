// Command fakelsp is the scripted language server of the tests
// (langserver/langservertest): LSP on stdio, a diagnostic for every line
// with "ERR:" or "WARN:", definitions of `func name`, and misbehaviour on
// demand with FAKELSP_MODE=crash|hang|garbage|silent.
package main

import "github.com/pi-lsp/pi-lsp/langserver/langservertest"

func main() { langservertest.Main() }
