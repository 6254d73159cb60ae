package harness

import (
	"encoding/json"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Outcomes go into the result's details beside the tool's own fields; a
// failed result without one gets error; OutcomeOf reads them back and
// never reads a successful result's text.
func TestOutcomeDetails(t *testing.T) {
	res := declined("Tool call declined by the user: edit was not run.", "use tabs").result()
	if string(res.Details) != `{"outcome":"declined","reason":"use tabs"}` || !res.IsError || res.Content[0].Text != "Tool call declined by the user: edit was not run." {
		t.Fatalf("declined result %+v details %s", res, res.Details)
	}
	failedRun := withErrorOutcome(tools.Result{IsError: true, Details: json.RawMessage(`{"exitCode":2}`)})
	if string(failedRun.Details) != `{"exitCode":2,"outcome":"error"}` {
		t.Fatalf("failed tool details %s", failedRun.Details)
	}
	if r := withErrorOutcome(res); string(r.Details) != string(res.Details) {
		t.Fatalf("an outcome was overwritten: %s", r.Details)
	}
	if r := withErrorOutcome(tools.Result{Details: json.RawMessage(`{"a":1}`)}); string(r.Details) != `{"a":1}` {
		t.Fatalf("a successful result got %s", r.Details)
	}
	m := llm.Message{Role: llm.RoleToolResult, Content: []llm.ContentBlock{llm.TextBlock("anything")}, IsError: true, Details: cancelledResult(EndClientGone).Details}
	if o, r, ok := OutcomeOf(&m); !ok || o != OutcomeInterrupted || r != "client_gone" {
		t.Fatalf("OutcomeOf = %q %q %v", o, r, ok)
	}
	ok := llm.Message{Role: llm.RoleToolResult, Content: []llm.ContentBlock{llm.TextBlock(cancelledText)}}
	if _, _, found := OutcomeOf(&ok); found {
		t.Fatal("a successful result was read from its text")
	}
}

// The hand-over message carries its note and title; an old one is read
// from its sentence; a user message with other details is not one.
func TestPlanHandoverDetails(t *testing.T) {
	m := PlanHandoverMessage(`Say "hi"`, 1)
	if title, ok := PlanHandoverOf(&m); !ok || title != `Say "hi"` {
		t.Fatalf("PlanHandoverOf = %q %v (details %s)", title, ok, m.Details)
	}
	old := llm.UserText(PlanHandoverText("Old"), 1)
	if title, ok := PlanHandoverOf(&old); !ok || title != "Old" {
		t.Fatalf("legacy = %q %v", title, ok)
	}
	other := llm.UserText(PlanHandoverText("X"), 1)
	other.Details = json.RawMessage(`{"note":"other"}`)
	if _, ok := PlanHandoverOf(&other); ok {
		t.Fatal("a message with other details read as a hand-over")
	}
}
