package tools

import (
	"regexp"
	"sort"
	"strings"
)

// Mask replaces every secret in display text.
const Mask = "••••••"

// minSecretLen is the shortest env value treated as a secret; shorter values
// ("1", "true") would mask ordinary text.
const minSecretLen = 6

// Redactor masks secrets in text meant for display: the values of
// environment variables whose name contains KEY, TOKEN, SECRET or PASSWORD,
// common token shapes (sk-…, ghp_…, xox…-, AKIA…, AIza…, Bearer …), and
// values assigned to such names in .env, shell and config text. It is
// immutable and safe for concurrent use; a nil *Redactor masks nothing.
type Redactor struct {
	values   *strings.Replacer // nil when there are no secret values
	secrets  []string          // the secret values, longest first
	patterns []secretPattern
}

// secretPattern masks what re matches, keeping its groups 1 and 2 (if any).
// The regexp only runs when the text contains one of need (compared
// lower-case when fold is set): most text has none, and the check is far
// cheaper than the regexp.
type secretPattern struct {
	re   *regexp.Regexp
	need []string
	fold bool
}

// NewRedactor builds a Redactor from an environment in os.Environ form
// ("NAME=value").
func NewRedactor(environ []string) *Redactor {
	seen := map[string]bool{}
	var secrets []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || len(value) < minSecretLen || seen[value] || !secretName(name) {
			continue
		}
		seen[value] = true
		secrets = append(secrets, value)
	}
	// Longer values first, so a secret that contains another is masked whole.
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	r := &Redactor{secrets: secrets, patterns: []secretPattern{
		// NAME=value / NAME: value with an upper-case env-style name (.env, export).
		{re: regexp.MustCompile(`(\b[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD)[A-Z0-9_]*["']?\s*[=:]\s*["']?)[^\s"']{6,}`),
			need: []string{"KEY", "TOKEN", "SECRET", "PASSWORD"}},
		// "api_key": "value", password = 'value' in config files and code.
		{re: regexp.MustCompile(`(?i)((?:api[_-]?key|secret|token|password|passwd)["']?\s*[:=]\s*["'])[^"'\n]{6,}(["'])`),
			need: []string{"key", "secret", "token", "passw"}, fold: true},
		// Authorization headers.
		{re: regexp.MustCompile(`(\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}`), need: []string{"Bearer"}},
		// Token shapes.
		{re: regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`), need: []string{"sk-"}},
		{re: regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`), need: []string{"gh"}},
		{re: regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`), need: []string{"github_pat_"}},
		{re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), need: []string{"xox"}},
		{re: regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), need: []string{"AKIA", "ASIA"}},
		{re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), need: []string{"AIza"}},
	}}
	if len(secrets) > 0 {
		pairs := make([]string, 0, 2*len(secrets))
		for _, s := range secrets {
			pairs = append(pairs, s, Mask)
		}
		r.values = strings.NewReplacer(pairs...)
	}
	return r
}

// secretName reports whether an environment variable holds a secret.
func secretName(name string) bool {
	return containsAny(strings.ToUpper(name), []string{"KEY", "TOKEN", "SECRET", "PASSWORD"})
}

// Redact returns s with every secret replaced by Mask.
func (r *Redactor) Redact(s string) string {
	if r == nil || s == "" {
		return s
	}
	if r.values != nil {
		s = r.values.Replace(s)
	}
	lower := ""
	for _, p := range r.patterns {
		hay := s
		if p.fold {
			if lower == "" {
				lower = strings.ToLower(s)
			}
			hay = lower
		}
		if !containsAny(hay, p.need) {
			continue
		}
		if p.re.NumSubexp() == 0 {
			s = p.re.ReplaceAllLiteralString(s, Mask)
		} else {
			s = p.re.ReplaceAllString(s, "${1}"+Mask+"${2}")
		}
		lower = ""
	}
	return s
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
