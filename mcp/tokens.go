package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// TokenStore keeps the OAuth tokens of the user's MCP servers in one file
// (~/.pi/agent/mcp-auth.json, mode 0600), keyed by server name and URL, so
// a login outlives the session. It is safe for concurrent use within a
// process; between processes the last writer wins (a login in another
// session is read again at the next start).
type TokenStore struct {
	path string
	mu   sync.Mutex
}

// NewTokenStore is the store at path ("" keeps nothing).
func NewTokenStore(path string) *TokenStore { return &TokenStore{path: path} }

// StoredToken is one server's login: the token and what refreshing it
// needs (the client the authorization server knows and its token URL).
type StoredToken struct {
	AccessToken  string    `json:"accessToken"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	TokenType    string    `json:"tokenType,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	ClientID     string    `json:"clientId"`
	ClientSecret string    `json:"clientSecret,omitempty"`
	TokenURL     string    `json:"tokenUrl"`
	AuthStyle    int       `json:"authStyle,omitempty"`
	Scopes       []string  `json:"scopes,omitempty"`
}

func (t StoredToken) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, TokenType: t.TokenType, Expiry: t.Expiry}
}

func (t StoredToken) config() *oauth2.Config {
	return &oauth2.Config{ClientID: t.ClientID, ClientSecret: t.ClientSecret, Scopes: t.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: t.TokenURL, AuthStyle: oauth2.AuthStyle(t.AuthStyle)}}
}

// tokenKey names a server's entry: its name and URL (a changed URL is a
// new login).
func tokenKey(c ServerConfig) string { return c.Name + " " + c.URL }

func (s *TokenStore) read() (map[string]StoredToken, error) {
	out := map[string]StoredToken{}
	if s == nil || s.path == "" {
		return out, nil
	}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcp tokens: %w", err)
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("mcp tokens: %s: %w", s.path, err)
	}
	return out, nil
}

func (s *TokenStore) write(all map[string]StoredToken) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("mcp tokens: %w", err)
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("mcp tokens: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".mcp-auth-*.json")
	if err != nil {
		return fmt.Errorf("mcp tokens: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("mcp tokens: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("mcp tokens: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("mcp tokens: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("mcp tokens: %w", err)
	}
	return nil
}

// Get is the stored login of key.
func (s *TokenStore) Get(key string) (StoredToken, bool, error) {
	if s == nil {
		return StoredToken{}, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.read()
	if err != nil {
		return StoredToken{}, false, err
	}
	t, ok := all[key]
	return t, ok, nil
}

// Put stores (or, with t nil, deletes) the login of key.
func (s *TokenStore) Put(key string, t *StoredToken) error {
	if s == nil || s.path == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.read()
	if err != nil {
		all = map[string]StoredToken{} // a broken file is replaced
	}
	if t == nil {
		if _, ok := all[key]; !ok {
			return nil
		}
		delete(all, key)
	} else {
		all[key] = *t
	}
	return s.write(all)
}

// Secrets are every token and client secret in the store, as
// NAME=value entries a tools.Redactor masks.
func (s *TokenStore) Secrets() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.read()
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range all {
		for _, v := range []string{t.AccessToken, t.RefreshToken, t.ClientSecret} {
			if v != "" {
				out = append(out, "PI_LSP_MCP_OAUTH_TOKEN="+v)
			}
		}
	}
	return out
}

// persistSource is a token source that stores every new token (a refresh
// rotates the refresh token: the new one is kept). A refresh that fails is
// reported as invalid_grant, so the transport sends the request without a
// token, gets 401 and logs in again.
type persistSource struct {
	base  oauth2.TokenSource
	save  func(*oauth2.Token)
	onErr func(error)

	mu   sync.Mutex
	last string
}

func (p *persistSource) Token() (*oauth2.Token, error) {
	t, err := p.base.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
			p.onErr(err)
			return nil, fmt.Errorf("%w: %w", &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: err.Error()}, err)
		}
		p.onErr(err)
		return nil, err
	}
	p.mu.Lock()
	changed := t.AccessToken != p.last
	p.last = t.AccessToken
	p.mu.Unlock()
	if changed {
		p.save(t)
	}
	return t, nil
}
