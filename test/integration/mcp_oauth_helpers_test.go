package integration

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// oauthMCP is an MCP server behind an in-test OAuth 2.1 authorization
// server (the go-sdk's server-side auth helpers for the resource side):
// /mcp needs a bearer token; /open is the same server without one. Access
// tokens expire at once (oauth2 treats a token as expired 10 s early), so
// every use refreshes, and each refresh rotates the refresh token: only
// the newest is accepted.
type oauthMCP struct {
	t   *testing.T
	srv *httptest.Server

	mu         sync.Mutex
	challenge  string
	authorized []url.Values // the /authorize queries
	refreshes  int
	refresh    string          // the one refresh token accepted
	valid      map[string]bool // access tokens
	seq        int
	elicited   []*sdk.ElicitResult
}

func newOAuthMCP(t *testing.T) *oauthMCP {
	o := &oauthMCP{t: t, valid: map[string]bool{}}
	mux := http.NewServeMux()
	o.srv = httptest.NewServer(mux)
	t.Cleanup(o.srv.Close)
	base := o.srv.URL
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: base + "/mcp", AuthorizationServers: []string{base}, ScopesSupported: []string{"mcp:read"},
	}))
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported":            []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "scopes_supported": []string{"mcp:read", "offline_access"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		m["client_id"] = "test-client"
		m["token_endpoint_auth_method"] = "none"
		writeJSON(w, http.StatusCreated, m)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		o.mu.Lock()
		o.authorized = append(o.authorized, q)
		o.challenge = q.Get("code_challenge")
		o.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=the-code&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		o.mu.Lock()
		defer o.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if r.Form.Get("code") != "the-code" || base64.RawURLEncoding.EncodeToString(sum[:]) != o.challenge || r.Form.Get("resource") != base+"/mcp" {
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
				return
			}
		case "refresh_token":
			if r.Form.Get("refresh_token") != o.refresh {
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
				return
			}
			o.refreshes++
		default:
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
			return
		}
		o.seq++
		at, rt := fmt.Sprintf("access-%d", o.seq), fmt.Sprintf("refresh-%d", o.seq)
		o.valid[at], o.refresh = true, rt
		writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 1, "refresh_token": rt, "scope": "mcp:read"})
	})
	server := sdk.NewServer(&sdk.Implementation{Name: "oauth-test", Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "whoami", Description: "who the token is"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		user := "anonymous"
		if ti := req.Extra.TokenInfo; ti != nil {
			user = ti.UserID
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "you are " + user}}}, nil, nil
	})
	sdk.AddTool(server, &sdk.Tool{Name: "ask", Description: "asks the user"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"name":{"type":"string"},"color":{"type":"string","enum":["red","blue"],"default":"blue"}},"required":["name","color"]}`)})
		if err != nil {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "elicitation failed: " + err.Error()}}, IsError: true}, nil, nil
		}
		o.mu.Lock()
		o.elicited = append(o.elicited, res)
		o.mu.Unlock()
		if res.Action != "accept" {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "the user chose " + res.Action}}}, nil, nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("%v likes %v", res.Content["name"], res.Content["color"])}}}, nil, nil
	})
	server.AddResource(&sdk.Resource{URI: "note://hello", Name: "hello", MIMEType: "text/plain"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "note://hello", MIMEType: "text/plain", Text: "the note says: purple elephants"}}}, nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		o.mu.Lock()
		defer o.mu.Unlock()
		if !o.valid[tok] {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: []string{"mcp:read"}, Expiration: time.Now().Add(time.Hour), UserID: "user-1"}, nil
	}
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: base + "/.well-known/oauth-protected-resource/mcp"})(h))
	mux.Handle("/open", h)
	return o
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (o *oauthMCP) stats() (authorized []url.Values, refreshes int, refresh string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]url.Values(nil), o.authorized...), o.refreshes, o.refresh
}

// followBrowser answers window/showDocument as a browser would: it loads
// the page and follows the redirect back to pi-lsp's loopback listener.
func followBrowser(s *server, opened *[]map[string]any, mu *sync.Mutex) {
	s.Handle("window/showDocument", func(_ context.Context, params json.RawMessage) (any, error) {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		*opened = append(*opened, p)
		mu.Unlock()
		resp, err := http.Get(fmt.Sprint(p["uri"]))
		if err != nil {
			return map[string]any{"success": false}, nil
		}
		resp.Body.Close()
		return map[string]any{"success": resp.StatusCode == http.StatusOK}, nil
	})
}

// httpGetUnescaped loads an escaped URL with a query appended.
func httpGetUnescaped(escaped, query string) (int, error) {
	u, err := url.QueryUnescape(escaped)
	if err != nil {
		return 0, err
	}
	resp, err := http.Get(u + query)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
