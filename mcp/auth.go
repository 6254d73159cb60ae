package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// maxStepUps bounds the step-up logins (403 insufficient_scope) of one
// connection: a server that keeps asking for more is given up on.
const maxStepUps = 2

// errNeedsLogin stops a connection that answered 401 when no login may run
// now (an editor session: the user logs in with mcp/login).
var errNeedsLogin = errors.New("the server needs a login (mcp/login)")

// gate is the OAuth handler of one connection: it runs the SDK's handler
// (discovery, registration, PKCE, token exchange, step-up) when a login
// may run, and otherwise stops with errNeedsLogin so the server shows
// needs-login instead of failed.
type gate struct {
	inner   auth.OAuthHandler
	mayRun  func() bool
	onStart func()
	client  *http.Client // the handler's, for the legacy probe (nil: none)

	mu      sync.Mutex
	stepUps int
	tried   bool  // a login ran
	err     error // the last login's error
}

func (g *gate) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	return g.inner.TokenSource(ctx)
}

func (g *gate) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if !g.mayRun() {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return errNeedsLogin
	}
	g.mu.Lock()
	if resp.StatusCode == http.StatusForbidden {
		g.stepUps++
		if g.stepUps > maxStepUps {
			g.mu.Unlock()
			resp.Body.Close()
			err := fmt.Errorf("the server still refuses (403) after %d step-up logins", maxStepUps)
			g.setErr(err)
			return err
		}
	}
	g.mu.Unlock()
	g.onStart()
	if g.client != nil {
		if origin, ok := legacyOrigin(ctx, g.client, req.URL.String(), resp.Header.Values("WWW-Authenticate")); ok {
			ctx = context.WithValue(ctx, legacyKey{}, origin)
		}
	}
	err := g.inner.Authorize(ctx, req, resp)
	g.setErr(err)
	return err
}

func (g *gate) setErr(err error) {
	g.mu.Lock()
	g.tried, g.err = true, err
	g.mu.Unlock()
}

// outcome says whether a login ran and how it ended.
func (g *gate) outcome() (tried bool, err error) {
	if g == nil {
		return false, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tried, g.err
}

// oauthHandler builds the gate of one connection to an http or sse server
// c (expanded): client credentials, or the authorization code flow with
// the stored login as its first token source.
func (m *Manager) oauthHandler(s *server, c ServerConfig, httpClient *http.Client) (*gate, error) {
	o := c.OAuth
	if o == nil {
		o = &OAuthConfig{}
	}
	g := &gate{mayRun: func() bool { return m.loginMayRun(s) }, onStart: func() { s.setLoggingIn(true) }}
	if o.GrantType == GrantClientCredentials {
		h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: o.ClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}},
			HTTPClient:  httpClient,
		})
		if err != nil {
			return nil, fmt.Errorf("oauth: %w", err)
		}
		g.inner = h
		g.mayRun = func() bool { return true } // no user is involved
		return g, nil
	}
	port := o.CallbackPort
	if port == 0 {
		p, err := loopbackPort()
		if err != nil {
			return nil, fmt.Errorf("oauth: no loopback port for the redirect: %w", err)
		}
		port = p
	}
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", port)
	base := httpClient.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc := *httpClient
	hc.Transport = legacyIssuer{base: base}
	httpClient = &hc
	g.client = httpClient
	key := tokenKey(c)
	refreshCtx := context.WithValue(context.Background(), oauth2.HTTPClient, httpClient)
	save := func(cfg *oauth2.Config) func(*oauth2.Token) {
		return func(t *oauth2.Token) {
			st := &StoredToken{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, TokenType: t.TokenType, Expiry: t.Expiry,
				ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, TokenURL: cfg.Endpoint.TokenURL, AuthStyle: int(cfg.Endpoint.AuthStyle), Scopes: cfg.Scopes}
			if err := m.opts.Tokens.Put(key, st); err != nil {
				m.log.Warn("mcp oauth: storing the token", "server", c.Name, "err", err)
			}
		}
	}
	forget := func(err error) {
		m.log.Info("mcp oauth: refreshing the token failed: logging in again", "server", c.Name, "err", err)
	}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: m.fetchCode(c.Name, port),
		RequestRefreshToken:      true,
		Client:                   httpClient,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: m.opts.ClientName, RedirectURIs: []string{redirect},
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			return &persistSource{base: cfg.TokenSource(ctx, t), save: save(cfg), onErr: forget}, nil
		},
	}
	if o.ClientID != "" {
		pre := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		cfg.PreregisteredClient = pre
		cfg.DynamicClientRegistrationConfig = nil
	}
	if o.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
	}
	if len(o.Scopes) > 0 {
		scopes := append([]string(nil), o.Scopes...)
		cfg.ScopeFilter = func([]string) []string { return scopes }
	}
	if st, ok, err := m.opts.Tokens.Get(key); err != nil {
		m.log.Warn("mcp oauth: reading the stored token", "server", c.Name, "err", err)
	} else if ok {
		sc := st.config()
		cfg.InitialTokenSource = &persistSource{base: sc.TokenSource(refreshCtx, st.token()), save: save(sc), onErr: forget, last: st.AccessToken}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	g.inner = h
	return g, nil
}

func loopbackPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// authRoundTripper gives the legacy SSE transport, which takes no OAuth
// handler, what the Streamable HTTP transport does with one: the bearer
// token on every request, and on 401 or 403 one login and one retry.
type authRoundTripper struct {
	h    auth.OAuthHandler
	base http.RoundTripper
}

func (t authRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	send := func() (*http.Request, *http.Response, error) {
		req := r.Clone(r.Context())
		if r.GetBody != nil {
			b, err := r.GetBody()
			if err != nil {
				return nil, nil, err
			}
			req.Body = b
		}
		if ts, err := t.h.TokenSource(r.Context()); err == nil && ts != nil {
			if tok, err := ts.Token(); err == nil && tok != nil {
				req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			}
		}
		resp, err := t.base.RoundTrip(req)
		return req, resp, err
	}
	req, resp, err := send()
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	if r.Body != nil && r.GetBody == nil {
		return resp, nil // the body cannot be sent again
	}
	if err := t.h.Authorize(r.Context(), req, resp); err != nil {
		return nil, err
	}
	_, resp, err = send()
	return resp, err
}

// loginState is what the manager knows of a server's logins.
type loginState struct {
	allowed   bool // a login may run (mcp/login, or a login ran before)
	loggingIn bool // a login is under way (the start waits for it)
}

func (s *server) setLoggingIn(v bool) {
	s.mu.Lock()
	s.login.loggingIn = v
	s.mu.Unlock()
}

func (s *server) isLoggingIn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.login.loggingIn
}

// loginMayRun: exec logs in at the start (AutoLogin); an editor session
// after mcp/login.
func (m *Manager) loginMayRun(s *server) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return m.autoLogin() || s.login.allowed
}

// remote reports whether c is an http or sse server (the ones that can
// need a login).
func remote(c ServerConfig) bool { return c.Type == TypeHTTP || c.Type == TypeSSE }

// loginReason turns a failed connection into the state it leaves: needs
// login, login failed, or (nil) an ordinary failure.
func loginReason(g *gate, err error) (State, string, bool) {
	if g == nil {
		return "", "", false
	}
	tried, lerr := g.outcome()
	switch {
	case tried && lerr != nil:
		return StateFailed, "login failed: " + strings.TrimPrefix(lerr.Error(), "oauth2: "), true
	case !tried && errors.Is(err, errNeedsLogin), !tried && strings.Contains(err.Error(), errNeedsLogin.Error()):
		return StateNeedsLogin, "the server needs a login: log in with mcp/login", true
	}
	return "", "", false
}
