package rpc

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/tools"
)

// Masker masks secrets in one outgoing JSON document; *tools.Redactor
// satisfies it. exempt is asked for each string value's path (the object
// keys leading to it, "[]" for array elements) and keeps the value when it
// answers true. It must never return the unmasked document with an error.
type Masker = tools.JSONMasker

// MethodHandover is the notification an owner sends, on a session's socket
// only, to hand its queue to the process that takes its session over; its
// params are exempt from masking (exemptPath).
const MethodHandover = "$/pi-lsp/handover"

// errEgress is a message the egress step could not make safe: it was not
// sent.
var errEgress = fmt.Errorf("rpc: %w", tools.ErrUnmaskable)

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

// egressBody is egress of an encoded message (tools.MaskMessage, with the
// native wire's error response).
func egressBody(m Masker, body []byte) ([]byte, error) {
	out, err := tools.MaskMessage(m, body, exemptPath(body), func(raw json.RawMessage, reason string) ([]byte, error) {
		id, _ := parseID(raw)
		return jsonrpc2.EncodeMessage(jsonrpc2.NewResponse(id, nil, &jsonrpc2.Error{Code: jsonrpc2.Code(CodeInternalError), Message: reason}))
	})
	if err != nil && !errors.Is(err, errEgress) {
		err = fmt.Errorf("rpc: %w", err)
	}
	return out, err
}

// exemptPath says which string values of msg are sent as they are, because
// masking them would corrupt data rather than hide it: the content of a file
// the editor is asked to write (fs/writeTextFile), and the queue an owner
// hands to the pi-lsp process that takes its session over ($/pi-lsp/handover,
// sent only on a session's socket, never to an editor: package server).
func exemptPath(body []byte) func(path []string) bool {
	if ex := tools.ExemptParams(body, MethodHandover, false, ""); ex != nil {
		return ex
	}
	return tools.ExemptParams(body, "fs/writeTextFile", true, "content")
}
