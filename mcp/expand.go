package mcp

import (
	"fmt"
	"strings"
)

// Expand replaces ${VAR} and ${VAR:-default} in s, as Claude Code does.
// lookup returns a variable's value and whether it is set; ${VAR:-default}
// also takes the default when the variable is set but empty. An unset
// variable without a default is an error naming it. Text that is not a
// complete ${...} reference is kept as is.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validVarName(name) {
			// Not a reference: keep the text.
			b.WriteString(s[i : i+end+1])
			s = s[i+end+1:]
			continue
		}
		v, ok := lookup(name)
		switch {
		case hasDef && v == "":
			v = def
		case !ok:
			return "", fmt.Errorf("${%s} is not set and has no default (write ${%s:-default})", name, name)
		}
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

func validVarName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// expanded returns c with ${VAR} expanded in env, args, url, headers and
// the oauth credentials (and command and cwd, which Claude Code expands too).
func (c ServerConfig) expanded(lookup func(string) (string, bool)) (ServerConfig, error) {
	var err error
	x := func(s string) string {
		if err != nil {
			return s
		}
		var v string
		v, err = Expand(s, lookup)
		return v
	}
	out := c
	out.Command = x(c.Command)
	out.Cwd = x(c.Cwd)
	out.URL = x(c.URL)
	if c.Args != nil {
		out.Args = make([]string, len(c.Args))
		for i, a := range c.Args {
			out.Args[i] = x(a)
		}
	}
	if c.Env != nil {
		out.Env = make(map[string]string, len(c.Env))
		for k, v := range c.Env {
			out.Env[k] = x(v)
		}
	}
	if c.Headers != nil {
		out.Headers = make(map[string]string, len(c.Headers))
		for k, v := range c.Headers {
			out.Headers[k] = x(v)
		}
	}
	if c.OAuth != nil {
		o := *c.OAuth
		o.ClientID, o.ClientSecret, o.ClientMetadataURL = x(o.ClientID), x(o.ClientSecret), x(o.ClientMetadataURL)
		out.OAuth = &o
	}
	if err != nil {
		return c, err
	}
	return out, nil
}
