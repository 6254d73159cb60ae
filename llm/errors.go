package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// errIdle is the cancel cause when no data arrived within the idle timeout.
var errIdle = errors.New("idle timeout")

// failure is why one attempt did not produce a complete stream.
type failure struct {
	msg        string
	retryable  bool
	retryAfter time.Duration // server-directed delay, 0 if none
	aborted    bool
}

// httpFailure describes an HTTP error answer: status, provider message and
// Retry-After. 408, 409, 429 and 5xx are retryable.
func httpFailure(resp *http.Response, now time.Time) *failure {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := fmt.Sprintf("HTTP %d", resp.StatusCode)
	if text := http.StatusText(resp.StatusCode); text != "" {
		msg += " " + text
	}
	if pm := providerMessage(body); pm != "" {
		msg += ": " + pm
	}
	s := resp.StatusCode
	return &failure{
		msg:        msg,
		retryable:  s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500,
		retryAfter: retryAfter(resp.Header, now),
	}
}

// providerMessage extracts the error message of an error body: OpenAI's
// {"error":{"message"}}, {"error":"..."}, {"message":"..."}, or the text.
func providerMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		if len(v.Error) > 0 && string(v.Error) != "null" {
			var pe *providerError
			if errors.As(decodeProviderError(v.Error), &pe) && pe.Message != "" {
				return pe.Message
			}
		}
		if v.Message != "" {
			return v.Message
		}
		if v.Detail != "" {
			return v.Detail
		}
	}
	return truncate(strings.TrimSpace(string(body)), 500)
}

// retryAfter reads retry-after-ms (milliseconds) or Retry-After (seconds or
// an HTTP date).
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// streamFailure classifies an error met while reading a stream.
func streamFailure(err error, idle time.Duration) *failure {
	var pe *providerError
	switch {
	case errors.Is(err, errIdle):
		return &failure{msg: fmt.Sprintf("no data from the provider for %s (idle timeout)", idle), retryable: true}
	case errors.As(err, &pe):
		return &failure{msg: pe.Error(), retryable: pe.Code == http.StatusTooManyRequests || pe.Code >= 500}
	case errors.Is(err, errMalformed):
		return &failure{msg: "provider sent a " + err.Error()}
	default:
		return &failure{msg: "stream interrupted: " + err.Error(), retryable: true}
	}
}
