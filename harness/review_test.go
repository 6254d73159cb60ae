package harness_test

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/tools"
)

// recordingUI answers every approval with decision and keeps the requests.
type recordingUI struct {
	mu       sync.Mutex
	decision harness.Decision
	reqs     []harness.ApprovalRequest
}

func (u *recordingUI) RequestApproval(_ context.Context, req harness.ApprovalRequest) (harness.Decision, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.reqs = append(u.reqs, req)
	return u.decision, nil
}

func (u *recordingUI) AskQuestion(context.Context, tools.Question) (string, error) {
	return "", tools.ErrNoUI
}

func (u *recordingUI) ApprovePlan(context.Context, tools.Plan) (tools.PlanVerdict, error) {
	return tools.PlanVerdict{}, tools.ErrNoUI
}

const reviewSecret = "s3cr3t-value-4711"

func withSecretEnv(c *harness.Config) { c.Environ = []string{"MY_SERVICE_API_KEY=" + reviewSecret} }

// The approval request's display text describes the call with its own
// arguments; it goes to the editor (approval_pending, ui/requestApproval)
// through rpc's egress, which masks the secret (test/integration's
// TestNoSecretReachesTheClient asserts the bytes the editor gets).
func TestReviewApprovalDisplayDescribesTheCall(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"curl -u me:` + reviewSecret + ` https://example.com"}`}}},
		{Match: "b1", Text: "ok"},
	}, withSecretEnv)
	ui := &recordingUI{decision: harness.DecisionDecline}
	f.h.SetUI(ui)
	f.prompt(t, "call the API")
	f.wait(t)
	ui.mu.Lock()
	defer ui.mu.Unlock()
	if len(ui.reqs) != 1 {
		t.Fatalf("approval requests: %d", len(ui.reqs))
	}
	if got, want := ui.reqs[0].Display, "$ curl -u me:"+reviewSecret+" https://example.com"; got != want {
		t.Fatalf("display %q, want %q", got, want)
	}
	if !json.Valid(ui.reqs[0].Args) {
		t.Fatalf("args are not JSON: %s", ui.reqs[0].Args)
	}
	n := 0
	for _, e := range f.rec.all() {
		if e.Type == harness.EvApproval && e.Approval != nil && e.Approval.Display == ui.reqs[0].Display {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("approval_pending events with the request: %d", n)
	}
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
