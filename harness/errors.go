package harness

import (
	"errors"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Sentinel errors the wire layer maps to protocol error codes.
var (
	ErrNotFound = errors.New("not found")
	ErrNoModel  = llm.ErrNoModel // the registry's own sentinel: its message says how to configure one
	ErrInvalid  = errors.New("invalid argument")
	ErrClosed   = errors.New("the harness is closed")
)
