package server_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
	"github.com/pi-lsp/pi-lsp/server"
)

// noModels is a model source with nothing configured: prompts answer
// no-model without any network.
type noModels struct{}

func (noModels) Find(context.Context, string) (llm.Model, error) {
	return llm.Model{}, harness.ErrNoModel
}
func (noModels) Default(context.Context) (llm.Model, error) { return llm.Model{}, harness.ErrNoModel }

// TestTwoConnectionsHaveTheirOwnHarness: one server serves two connections;
// each initialize builds its own harness, a second initialize on one
// connection is refused, and closing one connection closes its harness
// only — the other keeps serving.
func TestTwoConnectionsHaveTheirOwnHarness(t *testing.T) {
	var mu sync.Mutex
	var built []*harness.Harness
	srv := server.NewAgentServer(server.AgentOptions{
		Name: "pi-lsp", Version: "test", Logger: slog.New(slog.DiscardHandler), SessionsRoot: t.TempDir(),
		NewHarness: func(cwd string, _ env.BufferReader, _ env.BufferWriter) (*harness.Harness, error) {
			h := harness.New(harness.Config{Env: env.NewLocal(t.TempDir()), Models: noModels{}, SessionsRoot: t.TempDir(),
				Logger: slog.New(slog.DiscardHandler)})
			mu.Lock()
			built = append(built, h)
			mu.Unlock()
			return h, nil
		},
	})
	a, b := rpctest.Serve(t, srv), rpctest.Serve(t, srv)
	rpctest.Init(t, a, nil)
	rpctest.Init(t, b, nil)
	_, err := a.Initialize(rpctest.Ctx(t), map[string]any{"processId": 1, "capabilities": map[string]any{}})
	rpctest.WantCode(t, err, rpc.CodeInvalidRequest)
	mu.Lock()
	if len(built) != 2 || built[0] == built[1] {
		t.Fatalf("harnesses built: %d", len(built))
	}
	ha, hb := built[0], built[1]
	mu.Unlock()

	var sa, sb struct {
		SessionID string `json:"sessionId"`
	}
	if err := a.Call(rpctest.Ctx(t), "session/new", nil, &sa); err != nil {
		t.Fatal(err)
	}
	if err := b.Call(rpctest.Ctx(t), "session/new", nil, &sb); err != nil {
		t.Fatal(err)
	}
	if sa.SessionID == "" || sa.SessionID == sb.SessionID {
		t.Fatalf("sessions %q and %q: each connection must have its own", sa.SessionID, sb.SessionID)
	}

	_ = a.Close()
	_ = a.Wait(t)
	if _, err := ha.Prompt(context.Background(), "hi", harness.PromptOptions{}); !errors.Is(err, harness.ErrClosed) {
		t.Fatalf("the closed connection's harness: %v, want ErrClosed", err)
	}
	if _, err := hb.Prompt(context.Background(), "hi", harness.PromptOptions{}); !errors.Is(err, harness.ErrNoModel) {
		t.Fatalf("the other connection's harness: %v, want it alive (no model)", err)
	}
	err = b.Call(rpctest.Ctx(t), "agent/prompt", map[string]any{"text": "hi"}, nil)
	rpctest.WantCode(t, err, rpc.CodeNoModel)
	var st struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.Call(rpctest.Ctx(t), "session/state", nil, &st); err != nil || st.SessionID != sb.SessionID {
		t.Fatalf("session/state on the open connection: %+v, %v", st, err)
	}
}
