package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// legacyServer serves authorization server metadata at its root whose
// issuer is issuer(origin), and protected-resource metadata when prm.
func legacyServer(t *testing.T, prm bool, issuer func(origin string) string) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := srv.URL
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource":
			if !prm {
				http.NotFound(w, r)
				return
			}
			res := o + "/mcp"
			if r.URL.Path == "/.well-known/oauth-protected-resource" {
				res = o
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": res, "authorization_servers": []string{o}})
		case "/.well-known/oauth-authorization-server":
			_ = json.NewEncoder(w).Encode(map[string]any{
				"issuer": issuer(o), "authorization_endpoint": o + "/oauth/authorize", "token_endpoint": o + "/oauth/token",
				"registration_endpoint": o + "/oauth/register", "response_types_supported": []string{"code"},
				"code_challenge_methods_supported": []string{"S256"},
			})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestLegacyIssuerOnlyForThe20250326Flow(t *testing.T) {
	ctx := context.Background()
	c := &http.Client{Transport: legacyIssuer{base: http.DefaultTransport}}

	// A 2025-03-26 server: no PRM, the issuer below its origin.
	srv := legacyServer(t, false, func(o string) string { return o + "/oauth" })
	origin, ok := legacyOrigin(ctx, c, srv.URL+"/mcp", nil)
	if !ok || origin != srv.URL {
		t.Fatalf("legacyOrigin = %q, %v; want %q, true", origin, ok, srv.URL)
	}
	if _, err := auth.GetAuthServerMetadata(ctx, srv.URL, c); err == nil || !strings.Contains(err.Error(), "does not match issuer") {
		t.Fatalf("outside a legacy login the issuer mismatch must be refused: %v", err)
	}
	asm, err := auth.GetAuthServerMetadata(context.WithValue(ctx, legacyKey{}, origin), srv.URL, c)
	if err != nil || asm == nil {
		t.Fatalf("legacy login: %v, %v", asm, err)
	}
	if asm.AuthorizationEndpoint != srv.URL+"/oauth/authorize" || asm.Issuer != srv.URL {
		t.Fatalf("metadata = %+v", asm)
	}

	// A challenge naming resource metadata is not legacy.
	if _, ok := legacyOrigin(ctx, c, srv.URL+"/mcp", []string{`Bearer resource_metadata="` + srv.URL + `/x"`}); ok {
		t.Fatal("a resource_metadata challenge is not the legacy flow")
	}

	// A server with PRM is not legacy.
	withPRM := legacyServer(t, true, func(o string) string { return o })
	if _, ok := legacyOrigin(ctx, c, withPRM.URL+"/mcp", nil); ok {
		t.Fatal("a server with protected-resource metadata is not the legacy flow")
	}

	// An issuer on another origin stays refused, even in a legacy login.
	other := legacyServer(t, false, func(string) string { return "https://evil.example" })
	if _, err := auth.GetAuthServerMetadata(context.WithValue(ctx, legacyKey{}, other.URL), other.URL, c); err == nil || !strings.Contains(err.Error(), "does not match issuer") {
		t.Fatalf("an issuer on another origin must be refused: %v", err)
	}
}
