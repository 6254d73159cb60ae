package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// ExhaustedMessage is the error message of the 500 answer given when no
// scripted response matches a request.
const ExhaustedMessage = "fakellm: script exhausted"

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the root of the server, e.g. "http://127.0.0.1:41234". Chat
	// Completions are served at URL+"/v1/chat/completions" and at
	// URL+"/chat/completions", so either URL or BaseURL() works as an
	// OpenAI base URL.
	URL string

	srv  *httptest.Server
	done chan struct{} // closed by Close, ends stalls and delays

	mu       sync.Mutex
	script   []entry
	requests [][]byte
	log      []LogEntry
	clock    int // events (arrivals and ends) so far
	inFlight int
	closed   bool
	count    func(body []byte) int // prompt tokens of a request; nil: bytes / 4
	window   int                   // requests over this many prompt tokens get a 400; 0: no limit
	counter  func([]byte) int      // prompt tokens of a request (SetTokenCounter); nil = bytes/4
}

// SetTokens makes the fake count a request's prompt tokens with count
// (RealisticTokens, say) in the usage it reports and, when window > 0,
// answer a request of more than window prompt tokens with a 400 context
// length error, as a provider does.
func (s *Server) SetTokens(count func(body []byte) int, window int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count, s.window = count, window
}

// LogEntry is one request of the log: its body and when it was answered,
// as positions on one counter of arrivals and ends, so the log shows which
// requests overlapped. End is 0 while the answer is still being sent.
type LogEntry struct {
	Body     []byte `json:"-"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	InFlight int    `json:"inFlight"` // requests being answered when it arrived, itself included
}

// Overlaps reports whether two answered requests were in flight at once.
func (e LogEntry) Overlaps(o LogEntry) bool {
	return e.Start < o.End && o.Start < e.End
}

// Log returns the request log, in arrival order.
func (s *Server) Log() []LogEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]LogEntry, len(s.log))
	for i, e := range s.log {
		out[i] = e
		out[i].Body = bytes.Clone(e.Body)
	}
	return out
}

// finish marks request n (1-based) as answered.
func (s *Server) finish(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock++
	s.inFlight--
	s.log[n-1].End = s.clock
}

// awaitInFlight waits until want requests have been in flight at once
// since request n (1-based) arrived, or 10 s pass, or the request or server
// ends. The count only grows at arrivals, so the log says when it did.
func (s *Server) awaitInFlight(r *http.Request, n, want int) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		reached := false
		for _, e := range s.log[n-1:] {
			reached = reached || e.InFlight >= want
		}
		s.mu.Unlock()
		if reached {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

type entry struct {
	Response
	used bool
}

// NewServer starts a fake on a loopback port with the given script and
// closes it when the test ends.
func NewServer(tb testing.TB, script ...Response) *Server {
	tb.Helper()
	s := newServer(script)
	s.srv = httptest.NewServer(s.handler())
	s.URL = s.srv.URL
	tb.Cleanup(s.Close)
	return s
}

// Start starts a fake listening on addr (e.g. "127.0.0.1:0"). The caller
// must Close it.
func Start(addr string, script ...Response) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("llmtest: listen %s: %w", addr, err)
	}
	s := newServer(script)
	s.srv = httptest.NewUnstartedServer(s.handler())
	_ = s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

func newServer(script []Response) *Server {
	s := &Server{done: make(chan struct{})}
	s.Append(script...)
	return s
}

// BaseURL is URL + "/v1", the base URL an OpenAI client expects.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Close stops the server; streams in progress are cut.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Append adds responses to the end of the script.
func (s *Server) Append(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rs {
		s.script = append(s.script, entry{Response: r})
	}
}

// Requests returns a copy of every chat request body received so far, in
// order.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, len(s.requests))
	for i, b := range s.requests {
		out[i] = bytes.Clone(b)
	}
	return out
}

// Pending returns how many non-repeating responses are still unconsumed.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.script {
		if !e.used && !e.Repeat {
			n++
		}
	}
	return n
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("POST /chat/completions", s.serveChat)
	mux.HandleFunc("GET /requests", s.serveRequests)
	mux.HandleFunc("POST /script", s.serveScript)
	return mux
}

// take records the request and picks its response. n is the request's
// place in the log (1-based).
func (s *Server) take(body []byte) (Response, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, body)
	s.clock++
	s.inFlight++
	s.log = append(s.log, LogEntry{Body: body, Start: s.clock, InFlight: s.inFlight})
	// n numbers the request among the answered ones, in the log: a request
	// refused for its context length is in requests but not in the log, so
	// len(s.requests) would point past the log's end.
	n := len(s.log)
	for i := range s.script {
		e := &s.script[i]
		if e.used || (e.Match != "" && !bytes.Contains(body, []byte(e.Match))) {
			continue
		}
		if !e.Repeat {
			e.used = true
		}
		return e.Response, n, true
	}
	return Response{}, n, false
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "fakellm: reading request: "+err.Error(), 0)
		return
	}
	s.mu.Lock()
	count, window := s.count, s.window
	s.mu.Unlock()
	reqBytes := len(body)
	if count != nil {
		prompt := count(body)
		if window > 0 && prompt > window {
			s.mu.Lock()
			s.requests = append(s.requests, body)
			s.mu.Unlock()
			writeError(w, http.StatusBadRequest, fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.", window, prompt), 0)
			return
		}
		reqBytes = prompt * 4 // usage reports reqBytes / 4
	}
	resp, n, ok := s.take(body)
	s.mu.Lock()
	counter := s.counter
	s.mu.Unlock()
	if ok && counter != nil && resp.Usage == nil {
		u := resp.usage(len(body))
		u.Prompt = counter(body)
		resp.Usage = &u
	}
	defer s.finish(n)
	if resp.AwaitInFlight > 1 {
		s.awaitInFlight(r, n, resp.AwaitInFlight)
	}
	if !ok {
		writeError(w, http.StatusInternalServerError,
			fmt.Sprintf("%s: request %d matched no scripted response", ExhaustedMessage, n), 0)
		return
	}
	if resp.Status != 0 && resp.Status != http.StatusOK {
		msg := resp.Error
		if msg == "" {
			msg = fmt.Sprintf("fakellm: status %d", resp.Status)
		}
		writeError(w, resp.Status, msg, resp.RetryAfterMs)
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req) // a body that is not JSON still gets an answer
	if !req.Stream {
		writeJSON(w, http.StatusOK, completion(&resp, req.Model, reqBytes))
		return
	}
	st := &streamer{w: w, r: r, done: s.done, resp: &resp, model: req.Model, reqBytes: reqBytes}
	st.run()
}

func (s *Server) serveRequests(w http.ResponseWriter, _ *http.Request) {
	reqs := s.Requests()
	out := make([]any, len(reqs))
	for i, b := range reqs {
		if json.Valid(b) {
			out[i] = json.RawMessage(b)
		} else {
			out[i] = string(b)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) serveScript(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "fakellm: reading script: "+err.Error(), 0)
		return
	}
	rs, err := ParseScript(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), 0)
		return
	}
	s.Append(rs...)
	writeJSON(w, http.StatusOK, map[string]int{"appended": len(rs), "pending": s.Pending()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string, retryAfterMs int) {
	if retryAfterMs > 0 {
		w.Header().Set("retry-after-ms", fmt.Sprint(retryAfterMs))
		w.Header().Set("Retry-After", fmt.Sprint((retryAfterMs+999)/1000))
	}
	typ := "server_error"
	if status < 500 {
		typ = "invalid_request_error"
	}
	if status == http.StatusTooManyRequests {
		typ = "rate_limit_error"
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "code": strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_")),
	}})
}
