package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

func TestOAuthConfigParsedAndExpanded(t *testing.T) {
	cs, diags := ParseConfig([]byte(`{"mcpServers": {
  "a": {"type": "http", "url": "https://x/mcp", "oauth": {"clientId": "${ID}", "clientSecret": "${SECRET:-s3}", "callbackPort": 8976, "scopes": "read write"}},
  "b": {"type": "http", "url": "https://y/mcp", "oauth": {"grantType": "client_credentials", "clientId": "bot"}},
  "c": {"command": "x", "oauth": {"clientId": "id"}},
  "d": {"type": "sse", "url": "https://z/sse", "oauth": {"scopes": ["a", "b"], "clientMetadataUrl": "http://not-https/doc.json"}}
}}`), "mcp.json", SourceUser)
	if len(cs) != 4 || cs[0].Err != "" || cs[0].OAuth.CallbackPort != 8976 || strings.Join(cs[0].OAuth.Scopes, ",") != "read,write" {
		t.Fatalf("a: %+v %+v", cs, diags)
	}
	if !strings.Contains(cs[1].Err, "clientSecret") || !strings.Contains(cs[2].Err, "http and sse") || !strings.Contains(cs[3].Err, "https") {
		t.Fatalf("errors: %q %q %q", cs[1].Err, cs[2].Err, cs[3].Err)
	}
	x, err := cs[0].expanded(func(n string) (string, bool) { return map[string]string{"ID": "client-7"}[n], n == "ID" })
	if err != nil || x.OAuth.ClientID != "client-7" || x.OAuth.ClientSecret != "s3" || cs[0].OAuth.ClientID != "${ID}" {
		t.Fatalf("expanded: %+v %v (the original: %+v)", x.OAuth, err, cs[0].OAuth)
	}
}

func TestTokenStoreFileModeAndSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent", "mcp-auth.json")
	s := NewTokenStore(path)
	if _, ok, err := s.Get("k"); ok || err != nil {
		t.Fatalf("empty store: %v %v", ok, err)
	}
	tok := &StoredToken{AccessToken: "access-abcdef", RefreshToken: "refresh-abcdef", ClientID: "c", TokenURL: "https://as/token"}
	if err := s.Put("k", tok); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v", fi, err)
	}
	got, ok, err := s.Get("k")
	if !ok || err != nil || got.RefreshToken != "refresh-abcdef" {
		t.Fatalf("get: %+v %v %v", got, ok, err)
	}
	sec := strings.Join(s.Secrets(), "\n")
	if !strings.Contains(sec, "access-abcdef") || !strings.Contains(sec, "refresh-abcdef") {
		t.Fatalf("secrets: %q", sec)
	}
	if err := s.Put("k", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("k"); ok {
		t.Fatal("the token was not forgotten")
	}
}

type failingSource struct{ err error }

func (f failingSource) Token() (*oauth2.Token, error) { return nil, f.err }

// A refresh that fails for any reason reads as invalid_grant, which makes
// the transport send the request without a token and log in again on 401.
func TestPersistSourceFailedRefreshIsInvalidGrant(t *testing.T) {
	var reported error
	p := &persistSource{base: failingSource{errors.New("token endpoint: 500")}, save: func(*oauth2.Token) {}, onErr: func(err error) { reported = err }}
	_, err := p.Token()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" || reported == nil {
		t.Fatalf("err %v, reported %v", err, reported)
	}
	saved := 0
	p = &persistSource{base: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "a1"}), save: func(*oauth2.Token) { saved++ }, onErr: func(error) {}}
	_, _ = p.Token()
	_, _ = p.Token()
	if saved != 1 {
		t.Fatalf("saved %d times, want once per new token", saved)
	}
}

type openFunc func(ctx context.Context, server, url string) error

func (f openFunc) OpenURL(ctx context.Context, server, url string) error { return f(ctx, server, url) }
func (openFunc) Elicit(context.Context, string, ElicitRequest) (ElicitResult, error) {
	return ElicitResult{Action: "decline"}, nil
}

// The loopback listener checks the state, reports the authorization
// server's error, and says so when its port is taken.
func TestFetchCodeFaults(t *testing.T) {
	m := NewManager(Options{LoginTimeout: 10 * time.Second})
	defer m.Close()
	port, err := loopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	authURL := "https://as.example/authorize?state=the-state&redirect_uri=x"
	for _, tc := range []struct{ query, want string }{
		{"?code=c&state=other", "state mismatch"},
		{"?error=access_denied&error_description=no", "access_denied: no"},
	} {
		m.SetUI(openFunc(func(_ context.Context, _, _ string) error {
			go func() {
				if resp, err := http.Get("http://127.0.0.1:" + itoa(port) + "/callback" + tc.query); err == nil {
					resp.Body.Close()
				}
			}()
			return nil
		}))
		_, err := m.fetchCode("s", port)(context.Background(), &auth.AuthorizationArgs{URL: authURL})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: %v", tc.query, err)
		}
	}
	m.SetUI(openFunc(func(_ context.Context, _, u string) error {
		go func() {
			if resp, err := http.Get("http://127.0.0.1:" + itoa(port) + "/callback?code=good&state=the-state&iss=" + url.QueryEscape("https://as.example")); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}))
	res, err := m.fetchCode("s", port)(context.Background(), &auth.AuthorizationArgs{URL: authURL})
	if err != nil || res.Code != "good" || res.State != "the-state" || res.Iss != "https://as.example" {
		t.Fatalf("good redirect: %+v %v", res, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := m.fetchCode("s", port)(context.Background(), &auth.AuthorizationArgs{URL: authURL}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("port in use: %v", err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestCompleteElicitation(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer","default":3},
	  "color":{"type":"string","enum":["red","blue"],"default":"blue"}},"required":["name","color"]}`)
	got, err := CompleteElicitation(schema, map[string]any{"name": "Ada"})
	if err != nil || got["color"] != "blue" || got["n"] != float64(3) || got["name"] != "Ada" {
		t.Fatalf("defaults: %v %v", got, err)
	}
	if _, err := CompleteElicitation(schema, map[string]any{"name": "Ada", "color": "green"}); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("enum mismatch: %v", err)
	}
	if _, err := CompleteElicitation(schema, map[string]any{}); err == nil {
		t.Fatal("a missing required field without a default was accepted")
	}
	if !allRequiredDefaulted(json.RawMessage(`{"required":["a"],"properties":{"a":{"type":"string","default":"x"}}}`)) ||
		allRequiredDefaulted(schema) {
		t.Fatal("allRequiredDefaulted")
	}
	r, _ := TerminalUI{Out: &strings.Builder{}}.Elicit(context.Background(), "s", ElicitRequest{RequestedSchema: schema})
	if r.Action != "decline" {
		t.Fatalf("headless without yolo: %+v", r)
	}
}

func TestMentions(t *testing.T) {
	m := NewManager(Options{Session: []ServerConfig{{Name: "docs", Type: TypeHTTP, URL: "http://x/mcp"}}})
	defer m.Close()
	got := m.Mentions("see @docs:note://a/b.md, and @other:x://y and mail@docs:z and @src/main.go")
	if len(got) != 1 || got[0] != (Mention{Server: "docs", URI: "note://a/b.md"}) {
		t.Fatalf("mentions: %+v", got)
	}
}
