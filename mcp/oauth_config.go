package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
)

// OAuthConfig is a server's "oauth" entry, in Claude Code's .mcp.json
// shape plus pi-lsp's grantType and clientMetadataUrl. Every string takes
// ${VAR} expansion.
type OAuthConfig struct {
	// ClientID and ClientSecret are pre-registered credentials (no
	// dynamic registration then).
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// CallbackPort fixes the loopback redirect's port (0: any free port).
	CallbackPort int `json:"callbackPort,omitempty"`
	// Scopes replace the scopes the server asks for.
	Scopes Scopes `json:"scopes,omitempty"`
	// GrantType "client_credentials" logs in machine-to-machine with
	// ClientID and ClientSecret, without a browser; "" or
	// "authorization_code" is the browser login.
	GrantType string `json:"grantType,omitempty"`
	// ClientMetadataURL is an https URL of a client ID metadata document:
	// that URL is the client id, where the authorization server supports it.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
}

// Grant types.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
)

// Scopes are a list of scopes, written as an array or one space-separated
// string.
type Scopes []string

// UnmarshalJSON takes ["a","b"] or "a b".
func (s *Scopes) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = strings.Fields(one)
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf(`"scopes" must be a string or an array of strings`)
	}
	*s = many
	return nil
}

func (o *OAuthConfig) check(typ string) string {
	if typ == TypeStdio {
		return `"oauth" applies to http and sse servers only`
	}
	switch o.GrantType {
	case "", GrantAuthorizationCode:
	case GrantClientCredentials:
		if o.ClientID == "" || o.ClientSecret == "" {
			return `"grantType": "client_credentials" needs "clientId" and "clientSecret"`
		}
	default:
		return fmt.Sprintf(`unknown "grantType" %q (want authorization_code or client_credentials)`, o.GrantType)
	}
	if o.CallbackPort < 0 || o.CallbackPort > 65535 {
		return `"callbackPort" must be a port number`
	}
	if o.ClientMetadataURL != "" && !strings.HasPrefix(o.ClientMetadataURL, "https://") {
		return `"clientMetadataUrl" must be an https URL`
	}
	return ""
}
