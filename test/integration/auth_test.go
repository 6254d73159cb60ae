package integration

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// TestAuthJSONKey: a provider with no environment variable and no apiKey
// in models.json gets its key from pi's auth.json; the provider receives
// it as the bearer token, and it never reaches the editor, not even when a
// tool prints the file.
func TestAuthJSONKey(t *testing.T) {
	const key = "pk-authjson-9f8e7d6c5b4a3210"
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"cat ~/.pi/agent/auth.json"}`}}},
		{Match: "api_key", Text: "I printed the file"},
	})
	target, _ := url.Parse(e.llm.URL)
	var mu sync.Mutex
	var auths []string
	proxy := httputil.NewSingleHostReverseProxy(target)
	// A transport of its own: http.DefaultTransport is shared with every
	// parallel test in this process, and each httptest.Server.Close calls
	// its CloseIdleConnections (which also cancels dials in progress). One
	// CI run (2026-12-02 18:51 UTC) saw this proxy's upstream stream closed
	// under it ("use of closed network connection") a second into the test;
	// the cause was not found, so this removes the shared state and the
	// proxy's log goes to the test's output.
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	proxy.Transport = tr
	proxy.ErrorLog = log.New(testLogWriter{t}, "proxy: ", 0)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	models := filepath.Join(t.TempDir(), "models.json")
	writeFile(t, models, fmt.Sprintf(`{"providers": {"vault": {"baseUrl": %q, "api": "openai-completions", "models": [{"id": "m1"}]}}}`, front.URL+"/v1"))
	e.models = models
	authPath := filepath.Join(e.home, ".pi", "agent", "auth.json")
	writeFile(t, authPath, `{"vault": {"type": "api_key", "key": "`+key+`"}}`)
	if err := os.Chmod(authPath, 0o600); err != nil {
		t.Fatal(err)
	}
	s := e.start(startOpt{args: []string{"--yolo", "--model", "vault/m1"}})
	s.prompt("show me the credentials file")
	s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatalf("the run did not reach the model (auths %q)", auths)
	}
	mu.Lock()
	for _, a := range auths {
		if a != "Bearer "+key {
			t.Errorf("a request without the auth.json key: %q", a)
		}
	}
	mu.Unlock()
	all := s.allNotifications()
	if strings.Contains(all, key) {
		t.Fatal("the auth.json key crossed the wire")
	}
	if !strings.Contains(all, "api_key") {
		t.Fatal("the tool output is not in the display at all (the test would prove nothing)")
	}
}

// testLogWriter sends a log.Logger's lines to t.Log, so a proxy error
// shows in the failing test's output.
type testLogWriter struct{ t *testing.T }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
