package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// DecodeParams decodes a request's params object into v (a pointer). Absent
// or null params leave v as it is. Anything else that does not fit answers
// -32602 naming the field: handlers return the error as it is.
func DecodeParams(params json.RawMessage, v any) error {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || string(p) == "null" {
		return nil
	}
	if p[0] != '{' {
		return ErrInvalidParams("params must be a JSON object")
	}
	err := json.Unmarshal(p, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "params"
		}
		return ErrInvalidParams(fmt.Sprintf("%q must be %s, not %s", field, typeName(te.Type.Kind().String()), te.Value))
	}
	return ErrInvalidParams(err.Error())
}

// Params decodes a request's params into a new T; see DecodeParams.
func Params[T any](params json.RawMessage) (T, error) {
	var v T
	err := DecodeParams(params, &v)
	return v, err
}

func typeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return "a " + kind
}
