package display

import (
	"encoding/json"

	"github.com/pi-lsp/pi-lsp/llm"
)

// historyDiagnostics gives a rebuilt tool item the diagnostics lines the
// live item had: the harness keeps them in the result's details under
// "diagnostics" (harness/diagnostics_details.go).
func historyDiagnostics(it *Item, m *llm.Message) {
	if len(m.Details) == 0 {
		return
	}
	var details struct {
		Diagnostics []string `json:"diagnostics"`
	}
	if err := json.Unmarshal(m.Details, &details); err != nil || len(details.Diagnostics) == 0 {
		return
	}
	it.Diagnostics = details.Diagnostics
}
