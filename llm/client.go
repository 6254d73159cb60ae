package llm

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// ClientOptions configures a Client. The zero value is usable.
type ClientOptions struct {
	// HTTPClient sends the requests (default: a client without a timeout;
	// a stream is bounded by its context and IdleTimeout instead).
	HTTPClient *http.Client
	// IdleTimeout is the longest wait for the response or between two
	// chunks (default 120 s).
	IdleTimeout time.Duration
	// MaxRetries is how many times a failed request is retried (default 3;
	// negative: never).
	MaxRetries int
	// RetryBaseDelay is the first backoff delay, doubled on each retry
	// (default 1 s). A Retry-After from the server replaces it.
	RetryBaseDelay time.Duration
	// MaxRetryDelay caps the backoff; a server asking to wait longer ends
	// the retries (default 60 s).
	MaxRetryDelay time.Duration
	// Now is the clock of message timestamps (default time.Now).
	Now func() time.Time
}

// Client streams Chat Completions from any OpenAI-compatible server. It
// implements Streamer and is safe for concurrent use.
type Client struct {
	http       *http.Client
	idle       time.Duration
	maxRetries int
	baseDelay  time.Duration
	maxDelay   time.Duration
	now        func() time.Time
}

var _ Streamer = (*Client)(nil)

// NewClient returns a Client with the options' defaults filled in.
func NewClient(opts ClientOptions) *Client {
	c := &Client{http: opts.HTTPClient, idle: opts.IdleTimeout, maxRetries: opts.MaxRetries,
		baseDelay: opts.RetryBaseDelay, maxDelay: opts.MaxRetryDelay, now: opts.Now}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.idle <= 0 {
		c.idle = 120 * time.Second
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = 3
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.baseDelay <= 0 {
		c.baseDelay = time.Second
	}
	if c.maxDelay <= 0 {
		c.maxDelay = 60 * time.Second
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Stream runs one model call; see Streamer. Events are emitted in order:
// start once the first stream opens, then deltas; retry_start before each
// backoff wait and retry_end when the retried request has opened a stream
// or failed. Failures never panic or return a Go error: the message comes
// back with StopReason error (or aborted when ctx ends) and whatever content
// had arrived.
func (c *Client) Stream(ctx context.Context, req Request, emit func(Event)) Message {
	m := req.Model
	msg := &Message{Role: RoleAssistant, API: apiOf(m), Provider: m.Provider, Model: m.ID,
		StopReason: StopStop, Timestamp: c.now().UnixMilli()}
	if emit == nil {
		emit = func(Event) {}
	}
	p := newParser(msg, emit, m.Cost)
	fail := func(reason StopReason, text string) Message {
		p.finishToolCalls()
		msg.StopReason, msg.ErrorMessage = reason, text
		return *msg
	}
	if apiOf(m) != defaultAPI {
		return fail(StopError, fmt.Sprintf("model %s uses api %q; pi-lsp speaks only %q", m.Ref(), m.API, defaultAPI))
	}
	if m.BaseURL == "" {
		return fail(StopError, fmt.Sprintf("model %s has no baseUrl", m.Ref()))
	}
	cp, err := resolveCompat(m)
	if err != nil {
		return fail(StopError, err.Error())
	}
	params, err := buildParams(req, cp)
	if err != nil {
		return fail(StopError, err.Error())
	}
	oa := openai.Client{Options: c.requestOptions(m)}

	started := false
	for attempt := 0; ; attempt++ {
		opened := false
		onOpen := func() {
			opened = true
			if attempt > 0 {
				emit(Event{Type: EventRetryEnd, Attempt: attempt, MaxAttempts: c.maxRetries, Success: true})
			}
			if !started {
				started = true
				emit(Event{Type: EventStart, Partial: msg})
			}
		}
		f := c.attempt(ctx, &oa, params, p, onOpen)
		if f == nil {
			p.finishToolCalls()
			msg.StopReason, msg.ErrorMessage = p.stopReason()
			return *msg
		}
		if attempt > 0 && !opened {
			emit(Event{Type: EventRetryEnd, Attempt: attempt, MaxAttempts: c.maxRetries, Error: f.msg})
		}
		if f.aborted {
			return fail(StopAborted, "Request was aborted")
		}
		where := m.Ref() + ": "
		if !f.retryable || p.sawContent || c.maxRetries == 0 {
			return fail(StopError, where+f.msg)
		}
		if attempt >= c.maxRetries {
			return fail(StopError, fmt.Sprintf("%s%s (gave up after %d retries)", where, f.msg, c.maxRetries))
		}
		delay := c.backoff(attempt)
		if f.retryAfter > 0 {
			if f.retryAfter > c.maxDelay {
				return fail(StopError, fmt.Sprintf("%s%s (the server asks to wait %s, more than the %s limit)",
					where, f.msg, f.retryAfter.Round(time.Second), c.maxDelay))
			}
			delay = f.retryAfter
		}
		emit(Event{Type: EventRetryStart, Attempt: attempt + 1, MaxAttempts: c.maxRetries,
			DelayMs: int(delay.Milliseconds()), Error: f.msg})
		if !sleepCtx(ctx, delay) {
			emit(Event{Type: EventRetryEnd, Attempt: attempt + 1, MaxAttempts: c.maxRetries, Error: "aborted"})
			return fail(StopAborted, "Request was aborted")
		}
		p.reset()
	}
}

// requestOptions builds the SDK options for a model. The SDK client is
// assembled from options alone (not openai.NewClient) so that no OPENAI_*
// environment variable leaks into requests to other providers.
func (c *Client) requestOptions(m Model) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithBaseURL(m.BaseURL),
		option.WithAPIKey(m.APIKey),
		option.WithHTTPClient(c.http),
		option.WithMaxRetries(0), // retries are ours, each one an event
	}
	for k, v := range m.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return opts
}

// backoff is the delay before retry attempt+1: the base delay doubled per
// earlier retry, capped at the maximum.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.baseDelay
	for range attempt {
		if d >= c.maxDelay {
			break
		}
		d *= 2
	}
	return min(d, c.maxDelay)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
