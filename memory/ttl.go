package memory

import (
	"regexp"
	"strings"
	"time"
)

// gpt5Early matches gpt-5 and gpt-5.0 to gpt-5.4 (and their -mini, -nano
// and dated variants), whose prompt cache lives 5 minutes.
var gpt5Early = regexp.MustCompile(`^gpt-5(\.[0-4])?([^.0-9]|$)`)

// CacheTTL is how long the provider keeps a prompt prefix cached, after
// which the cache is cold anyway and the idle trigger may rewrite the
// context for free. It follows Mastra's activateAfterIdle mapping:
//
//	anthropic, xai, openrouter, openai gpt-4* / gpt-5.0-5.4: 5 min
//	other openai models, deepseek:                          1 h
//	groq:                                                   2 h
//	google / gemini:                                        24 h
//	anything else (local servers):                          5 min
//
// override, when positive, wins (the per-model setting).
func CacheTTL(provider, modelID string, override time.Duration) time.Duration {
	if override > 0 {
		return override
	}
	p := strings.ToLower(provider)
	id := strings.ToLower(modelID)
	if i := strings.LastIndex(id, "/"); i >= 0 {
		id = id[i+1:]
	}
	switch {
	case p == "anthropic", p == "xai", p == "openrouter":
		return 5 * time.Minute
	case p == "openai":
		if strings.HasPrefix(id, "gpt-4") || gpt5Early.MatchString(id) {
			return 5 * time.Minute
		}
		return time.Hour
	case p == "deepseek":
		return time.Hour
	case p == "groq":
		return 2 * time.Hour
	case p == "google", p == "gemini", strings.HasPrefix(id, "gemini"):
		return 24 * time.Hour
	}
	return 5 * time.Minute
}
