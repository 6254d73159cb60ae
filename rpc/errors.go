package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"
)

// JSON-RPC and LSP error codes, and pi-lsp's own (see docs/protocol.md).
const (
	CodeParseError           = -32700
	CodeInvalidRequest       = -32600
	CodeMethodNotFound       = -32601
	CodeInvalidParams        = -32602
	CodeInternalError        = -32603
	CodeServerNotInitialized = -32002
	CodeRequestCancelled     = -32800
	CodeBusy                 = -32001
	CodeNoModel              = -32003
	CodeLocked               = -32004
	CodeNotFound             = -32005
	CodeNotSession           = -32006 // a file opened as a session is not one
)

// Error is a JSON-RPC error a handler returns to choose the code, message
// and data of its response. Any other error answers -32603 with its text.
// A handler may wrap an *Error (fmt.Errorf("…: %w", err)): the code and data
// are kept and the message is the wrapped text.
type Error struct {
	Code    int
	Message string
	Data    any // marshalled as the error's data member; nil omits it
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// ErrInvalidParams answers -32602; msg says which field is wrong.
func ErrInvalidParams(msg string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "invalid params: " + msg}
}

// ErrBusy answers -32001 for a request that needs the agent idle; phase
// names what it is doing.
func ErrBusy[P ~string](phase P) *Error {
	return &Error{Code: CodeBusy, Message: fmt.Sprintf("busy: the agent is in phase %q; wait for it or send agent/abort", phase),
		Data: map[string]any{"phase": phase}}
}

// ErrNoModel answers -32003; hint says how to configure a model.
func ErrNoModel(hint string) *Error {
	return &Error{Code: CodeNoModel, Message: "no usable model: " + hint, Data: map[string]any{"hint": hint}}
}

// ErrLocked answers -32004: another process (pid) owns the session.
func ErrLocked(pid int) *Error {
	return &Error{Code: CodeLocked, Message: fmt.Sprintf("session is locked by another pi-lsp process (pid %d)", pid),
		Data: map[string]any{"pid": pid}}
}

// ErrNotFound answers -32005; what names the missing thing ("session /x.jsonl").
func ErrNotFound(what string) *Error {
	return &Error{Code: CodeNotFound, Message: "not found: " + what, Data: map[string]any{"what": what}}
}

var errCancelled = &jsonrpc2.Error{Code: CodeRequestCancelled, Message: "request cancelled"}

// toWire converts a handler's error to the JSON-RPC error sent back.
func toWire(err error) *jsonrpc2.Error {
	var e *Error
	if errors.As(err, &e) {
		w := &jsonrpc2.Error{Code: jsonrpc2.Code(e.Code), Message: err.Error()}
		if e.Data != nil {
			if b, merr := json.Marshal(e.Data); merr == nil {
				w.Data = b
			}
		}
		return w
	}
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return &jsonrpc2.Error{Code: je.Code, Message: err.Error(), Data: je.Data}
	}
	if errors.Is(err, context.Canceled) {
		return errCancelled
	}
	return &jsonrpc2.Error{Code: CodeInternalError, Message: err.Error()}
}

// fromWire converts an error answered by the client to an *Error (Data is
// the raw json.RawMessage); other errors are returned as they are.
func fromWire(err error) error {
	var je *jsonrpc2.Error
	if !errors.As(err, &je) {
		return err
	}
	e := &Error{Code: int(je.Code), Message: je.Message}
	if len(je.Data) > 0 {
		e.Data = json.RawMessage(je.Data)
	}
	return e
}
