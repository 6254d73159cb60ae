package harness

import "errors"

// Sentinel errors the wire layer maps to protocol error codes.
var (
	ErrNotFound = errors.New("not found")
	ErrNoModel  = errors.New("no usable model")
	ErrInvalid  = errors.New("invalid argument")
)
