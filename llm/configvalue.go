package llm

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// commandTimeout bounds a "!command" config value, as pi does.
const commandTimeout = 10 * time.Second

// isEnvName reports whether s looks like an environment variable name
// (upper case, digits, underscores), which is how pi tells an env var
// reference from a literal key in practice.
func isEnvName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// configured reports whether a config value (apiKey or header) yields a
// value without running anything: a command counts as configured, an env
// var name counts when the variable is set, anything else is a literal.
func configured(v string, env map[string]string) bool {
	switch {
	case v == "":
		return false
	case strings.HasPrefix(v, "!"):
		return true
	case env[v] != "":
		return true
	default:
		return !isEnvName(v)
	}
}

// resolveValue resolves a config value as pi's resolveConfigValue does:
// "!command" runs the command with sh and uses its trimmed stdout; a set
// environment variable of that name gives its value; otherwise the text is
// the value. An env var name that is not set resolves to "".
func resolveValue(ctx context.Context, v string, env map[string]string, environ []string) (string, error) {
	if cmd, ok := strings.CutPrefix(v, "!"); ok {
		ctx, cancel := context.WithTimeout(ctx, commandTimeout)
		defer cancel()
		c := exec.CommandContext(ctx, "sh", "-c", cmd)
		c.Env = environ
		var stderr bytes.Buffer
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			return "", fmt.Errorf("command %q failed: %w: %s", cmd, err, truncate(strings.TrimSpace(stderr.String()), 200))
		}
		s := strings.TrimSpace(string(out))
		if s == "" {
			return "", fmt.Errorf("command %q printed nothing", cmd)
		}
		return s, nil
	}
	if val := env[v]; val != "" {
		return val, nil
	}
	if isEnvName(v) {
		return "", nil
	}
	return v, nil
}

// envMap turns KEY=VALUE pairs into a map (later pairs win).
func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}
