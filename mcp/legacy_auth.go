package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// The 2025-03-26 MCP authorization spec (before protected-resource
// metadata) makes the MCP server's origin the authorization base URL:
// the client reads <origin>/.well-known/oauth-authorization-server, and
// without it uses <origin>/authorize, /token and /register. The SDK's
// AuthorizationCodeHandler implements that fallback, but checks the
// document's issuer against the origin (RFC 8414 section 3.3), and some
// legacy servers name their issuer below the origin (<origin>/oauth). In
// the legacy flow the client never learned an issuer identifier: the
// origin is the trust anchor, so the check can only hold the issuer to
// that origin. legacyIssuer relaxes it to exactly that, and only when the
// server publishes no protected-resource metadata (the legacy case); every
// other discovery keeps the SDK's strict check.

// legacyKey marks the context of a login against a legacy (2025-03-26)
// server: the value is the server's origin.
type legacyKey struct{}

// legacyOrigin reports the origin of the MCP server at mcpURL when its
// 401 (challenges) names no resource metadata and no protected-resource
// metadata is published at the well-known URLs the SDK tries.
func legacyOrigin(ctx context.Context, c *http.Client, mcpURL string, challenges []string) (string, bool) {
	cs, err := oauthex.ParseWWWAuthenticate(challenges)
	if err != nil {
		return "", false
	}
	for _, ch := range cs {
		if ch.Params["resource_metadata"] != "" {
			return "", false
		}
	}
	u, err := url.Parse(mcpURL)
	if err != nil || u.Host == "" {
		return "", false
	}
	origin := (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
	probes := [][2]string{
		{origin + "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/"), mcpURL},
		{origin + "/.well-known/oauth-protected-resource", origin},
	}
	for _, p := range probes {
		if prm, err := oauthex.GetProtectedResourceMetadata(ctx, p[0], p[1], c); err == nil && prm != nil {
			return "", false
		}
	}
	return origin, true
}

// legacyIssuer is the transport of a connection's OAuth requests. In a
// login marked legacy (legacyKey), the authorization server metadata at
// the origin's well-known URLs whose issuer lies on that same origin is
// passed on with the origin as its issuer, which is what the 2025-03-26
// flow compares it to. An issuer on another origin is passed on unchanged
// (and refused by the SDK).
type legacyIssuer struct{ base http.RoundTripper }

func (t legacyIssuer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	origin, ok := r.Context().Value(legacyKey{}).(string)
	if err != nil || !ok || resp.StatusCode != http.StatusOK || r.Method != http.MethodGet {
		return resp, err
	}
	if r.URL.Path != "/.well-known/oauth-authorization-server" && r.URL.Path != "/.well-known/openid-configuration" {
		return resp, nil
	}
	if (&url.URL{Scheme: r.URL.Scheme, Host: r.URL.Host}).String() != origin {
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the authorization server metadata: %w", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil {
		return resp, nil
	}
	iss, _ := doc["issuer"].(string)
	iu, err := url.Parse(iss)
	if err != nil || (&url.URL{Scheme: iu.Scheme, Host: iu.Host}).String() != origin {
		return resp, nil
	}
	doc["issuer"] = origin
	out, err := json.Marshal(doc)
	if err != nil {
		return resp, nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Del("Content-Length")
	return resp, nil
}
