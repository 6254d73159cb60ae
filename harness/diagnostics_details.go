package harness

import (
	"encoding/json"

	"github.com/pi-lsp/pi-lsp/tools"
)

// The diagnostics lines a change got are kept in its tool result's details
// (key "diagnostics", beside the tool's own details) so that a reopened
// session's tool item shows them again (display.ItemsFromMessages). pi
// ignores the key: it reads only the fields its own tools write.

// diagnosticsKey is the details key of the lines.
const diagnosticsKey = "diagnostics"

// withDiagnosticsDetails records lines in res.Details. Details that are not
// a JSON object (no tool writes such) are left as they are.
func withDiagnosticsDetails(res tools.Result, lines []string) tools.Result {
	if len(lines) == 0 {
		return res
	}
	return withDetails(res, map[string][]string{diagnosticsKey: lines})
}

// withDetails records the fields of add in res.Details, beside the tool's
// own. Details that are not a JSON object (no tool writes such) are left
// as they are.
func withDetails[V any](res tools.Result, add map[string]V) tools.Result {
	fields := map[string]json.RawMessage{}
	if len(res.Details) > 0 && string(res.Details) != "null" {
		if err := json.Unmarshal(res.Details, &fields); err != nil {
			return res
		}
	}
	for k, v := range add {
		b, err := json.Marshal(v)
		if err != nil {
			return res
		}
		fields[k] = b
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return res
	}
	res.Details = out
	return res
}
