package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Source says where a server definition came from. The order of the
// constants is the precedence: for two definitions of one name, the first
// source wins.
type Source string

// Sources, in precedence order.
const (
	SourceSession Source = "session" // an ACP client's session/new mcpServers
	SourceProject Source = "project" // .mcp.json at the workspace root
	SourceUser    Source = "user"    // ~/.pi/agent/mcp.json
)

// Transport types.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// ServerConfig is one MCP server definition, before ${VAR} expansion.
type ServerConfig struct {
	Name    string            `json:"name"`
	Type    string            `json:"type"` // stdio | http | sse
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Timeout of one tool call in milliseconds (0 = the manager's default).
	TimeoutMs int `json:"timeout,omitempty"`
	// OAuth configures the login to an http or sse server (nil: dynamic
	// client registration when the server asks for a login).
	OAuth *OAuthConfig `json:"oauth,omitempty"`

	Source Source `json:"source"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	// Err is a configuration problem (unknown type, missing command): the
	// server is shown as failed with this reason and never started.
	Err string `json:"-"`
}

// Diagnostic is a problem in a configuration file, with its position when
// known.
type Diagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Server  string `json:"server,omitempty"`
	Message string `json:"message"`
}

func (d Diagnostic) String() string {
	pos := d.File
	if d.Line > 0 {
		pos = fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Column)
	}
	if d.Server != "" {
		return fmt.Sprintf("%s: server %q: %s", pos, d.Server, d.Message)
	}
	return pos + ": " + d.Message
}

// rawServer is the on-disk shape of one server.
type rawServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Timeout int               `json:"timeout"`
	OAuth   *OAuthConfig      `json:"oauth"`
}

// ParseConfig reads a {"mcpServers": {...}} document. A document that is
// not valid JSON gives one diagnostic with its line and column and no
// servers; a server whose entry has the wrong shape gives a diagnostic and is
// skipped; a server with an unknown type or no command/url is returned with
// Err set, so it shows as failed. Servers come back in file order.
func ParseConfig(data []byte, file string, src Source) ([]ServerConfig, []Diagnostic) {
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		d := Diagnostic{File: file, Message: "invalid JSON: " + err.Error()}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			d.Line, d.Column = position(data, se.Offset)
		case errors.As(err, &te):
			d.Line, d.Column = position(data, te.Offset)
			d.Message = fmt.Sprintf("%q must be an object of servers", "mcpServers")
		}
		return nil, []Diagnostic{d}
	}
	offsets := serverOffsets(data)
	names := make([]string, 0, len(doc.MCPServers))
	for n := range doc.MCPServers {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return offsets[names[i]] < offsets[names[j]] })
	var out []ServerConfig
	var diags []Diagnostic
	for _, name := range names {
		line, col := position(data, offsets[name])
		var r rawServer
		if err := json.Unmarshal(doc.MCPServers[name], &r); err != nil {
			diags = append(diags, Diagnostic{File: file, Line: line, Column: col, Server: name, Message: "bad server entry: " + err.Error()})
			continue
		}
		c := ServerConfig{Name: name, Type: r.Type, Command: r.Command, Args: r.Args, Env: r.Env, Cwd: r.Cwd,
			URL: r.URL, Headers: r.Headers, TimeoutMs: r.Timeout, OAuth: r.OAuth, Source: src, File: file, Line: line}
		c.Err = c.check()
		if c.Err != "" {
			diags = append(diags, Diagnostic{File: file, Line: line, Column: col, Server: name, Message: c.Err})
		}
		out = append(out, c)
	}
	return out, diags
}

// check fills in the type and says what is wrong, if anything.
func (c *ServerConfig) check() string {
	if c.Type == "" {
		switch {
		case c.Command != "":
			c.Type = TypeStdio
		case c.URL != "":
			// Claude Code's default for a bare url is Streamable HTTP.
			c.Type = TypeHTTP
		}
	}
	if c.Type == "streamable-http" || c.Type == "streamableHttp" {
		c.Type = TypeHTTP
	}
	switch c.Type {
	case TypeStdio:
		if c.Command == "" {
			return `a stdio server needs "command"`
		}
	case TypeHTTP, TypeSSE:
		if c.URL == "" {
			return fmt.Sprintf(`a %s server needs "url"`, c.Type)
		}
	case "":
		return `give "command" (stdio) or "type" and "url" (http, sse)`
	default:
		return fmt.Sprintf("unknown type %q (want stdio, http or sse)", c.Type)
	}
	if c.TimeoutMs < 0 {
		return `"timeout" must not be negative`
	}
	if c.OAuth != nil {
		return c.OAuth.check(c.Type)
	}
	return ""
}

// Target is the command line or URL of the server, as shown to the user
// when asking to approve it.
func (c ServerConfig) Target() string {
	if c.Type == TypeStdio {
		parts := append([]string{c.Command}, c.Args...)
		for i, p := range parts {
			if p == "" || strings.ContainsAny(p, " \t\"'$\\") {
				parts[i] = fmt.Sprintf("%q", p)
			}
		}
		return strings.Join(parts, " ")
	}
	return c.URL
}

// Hash is a short hash of what the server runs or reaches (type, command,
// args, cwd, env names and values as written, url): a changed command asks
// for approval again.
func (c ServerConfig) Hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", c.Type, c.Command, strings.Join(c.Args, "\x01"), c.Cwd)
	keys := make([]string, 0, len(c.Env))
	for k := range c.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\x01", k, c.Env[k])
	}
	fmt.Fprintf(h, "\x00%s", c.URL)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ApprovalKey is the enabledMcpjsonServers entry that approves this server
// of the project at projectDir.
func (c ServerConfig) ApprovalKey(projectDir string) string {
	return projectDir + "#" + c.Name + "#" + c.Hash()
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// serverOffsets finds the byte offset of each key of the top-level
// "mcpServers" object, for diagnostics. It assumes data is valid JSON.
func serverOffsets(data []byte) map[string]int64 {
	out := map[string]int64{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return out
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := t.(string)
		if key != "mcpServers" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return out
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return out
		}
		for dec.More() {
			// The offset after the previous value: skip the separator and
			// whitespace to land on the key's quote.
			off := dec.InputOffset()
			for off < int64(len(data)) && (data[off] == ',' || data[off] == ' ' || data[off] == '\n' || data[off] == '\r' || data[off] == '\t') {
				off++
			}
			t, err := dec.Token()
			if err != nil {
				return out
			}
			if name, ok := t.(string); ok {
				out[name] = off
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return out
			}
		}
		return out
	}
	return out
}
