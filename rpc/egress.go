package rpc

import (
	"bytes"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"
)

// Masker masks secrets in one outgoing JSON document; *tools.Redactor
// satisfies it. exempt is asked for each string value's path (the object
// keys leading to it, "[]" for array elements) and keeps the value when it
// answers true. It must never return the unmasked document with an error.
type Masker interface {
	RedactJSON(doc []byte, exempt func(path []string) bool) ([]byte, error)
}

// MethodHandover is the notification an owner sends, on a session's socket
// only, to hand its queue to the process that takes its session over; its
// params are exempt from masking (exemptPath).
const MethodHandover = "$/pi-lsp/handover"

// errEgress is a message the egress step could not make safe: it was not
// sent.
var errEgress = errors.New("rpc: an outgoing message could not be masked; it was not sent")

// egress is the one step every outgoing message passes before it is framed:
// responses, notifications and server→client requests alike. It encodes the
// message and masks the secrets in its string values. When masking fails a
// response is replaced by an error response (the request is still
// answered); anything else is not sent (errEgress). Raw bytes never go out.
//
// Masking fails only on a body that is not JSON, which the encoder does not
// produce; the rule is here so that a bug costs a message, never a secret.
func egress(m Masker, msg jsonrpc2.Message) ([]byte, error) {
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errEgress, err)
	}
	return egressBody(m, body)
}

// egressBody is egress of an encoded message.
func egressBody(m Masker, body []byte) ([]byte, error) {
	safe, err := m.RedactJSON(body, exemptPath(body))
	if err == nil {
		return safe, nil
	}
	// The connection hands the stream its own message types: read the
	// response's id back from the body.
	if dec, derr := jsonrpc2.DecodeMessage(body); derr == nil {
		if resp, ok := dec.(*jsonrpc2.Response); ok {
			return jsonrpc2.EncodeMessage(jsonrpc2.NewResponse(resp.ID(), nil, &jsonrpc2.Error{
				Code:    jsonrpc2.Code(CodeInternalError),
				Message: "the result could not be masked for display, so it was not sent: " + err.Error(),
			}))
		}
	}
	return nil, fmt.Errorf("%w: %w", errEgress, err)
}

// exemptPath says which string values of msg are sent as they are, because
// masking them would corrupt data rather than hide it: the content of a file
// the editor is asked to write (fs/writeTextFile), and the queue an owner
// hands to the pi-lsp process that takes its session over ($/pi-lsp/handover,
// sent only on a session's socket, never to an editor: attach.go).
//
// The connection hands the stream its own unexported message types, so the
// method is read back from the encoded body, and only when the body names it.
func exemptPath(body []byte) func(path []string) bool {
	if bytes.Contains(body, []byte(`"`+MethodHandover+`"`)) {
		return exemptHandover(body)
	}
	if !bytes.Contains(body, []byte(`"fs/writeTextFile"`)) {
		return nil
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if call, ok := msg.(*jsonrpc2.Call); err != nil || !ok || call.Method() != "fs/writeTextFile" {
		return nil
	}
	return func(path []string) bool {
		return len(path) == 2 && path[0] == "params" && path[1] == "content"
	}
}

// exemptHandover keeps the params of a $/pi-lsp/handover notification: the
// queued messages must reach the next owner as the user typed them.
func exemptHandover(body []byte) func(path []string) bool {
	msg, err := jsonrpc2.DecodeMessage(body)
	if note, ok := msg.(*jsonrpc2.Notification); err != nil || !ok || note.Method() != MethodHandover {
		return nil
	}
	return func(path []string) bool { return len(path) >= 1 && path[0] == "params" }
}
