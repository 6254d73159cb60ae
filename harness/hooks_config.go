package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Claude Code's hook events and the harness hooks they map to.
const (
	HookPreToolUse       = "PreToolUse"       // tool_call: may block
	HookPostToolUse      = "PostToolUse"      // tool_result: may add context or rewrite
	HookUserPromptSubmit = "UserPromptSubmit" // before_agent_start: may block or add context
	HookPreCompact       = "PreCompact"       // session_before_compact: may cancel
	HookSessionStart     = "SessionStart"     // session_start: may add context
	HookStop             = "Stop"             // agent_end: may keep the run going
)

// DefaultHookTimeout bounds one command hook.
const DefaultHookTimeout = 60 * time.Second

// CommandHook is one shell command bound to an event.
type CommandHook struct {
	Event   string
	Matcher string // tool-name pattern (PreToolUse, PostToolUse); "" or "*" = every tool
	Command string
	Timeout time.Duration
	Source  string // "user" or "project"
	File    string
	match   *regexp.Regexp
}

// Matches reports whether the hook applies to a tool. Matchers are
// anchored regular expressions, compared without regard to case, so
// Claude Code's "Bash" and "Edit|Write" match pi-lsp's bash, edit and write.
func (c CommandHook) Matches(tool string) bool {
	if c.match == nil {
		return true
	}
	return c.match.MatchString(tool)
}

// HookDiagnostic is a problem in a hooks setting.
type HookDiagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Path    string `json:"path,omitempty"` // e.g. hooks.PreToolUse[0].hooks[1]
	Message string `json:"message"`
}

func (d HookDiagnostic) String() string {
	pos := d.File
	if d.Line > 0 {
		pos = fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	if d.Path != "" {
		pos += ": " + d.Path
	}
	return pos + ": " + d.Message
}

// ParseHooks reads the "hooks" key of a settings file in Claude Code's
// shape:
//
//	{"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}
//
// Every valid hook is returned; each invalid part gives a diagnostic and is
// skipped. A file that is not JSON gives one diagnostic with its line.
func ParseHooks(data []byte, file, source string) ([]CommandHook, []HookDiagnostic) {
	var doc struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		d := HookDiagnostic{File: file, Message: "invalid JSON: " + err.Error()}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			d.Line = bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n")) + 1
		} else {
			d.Path, d.Message = "hooks", `"hooks" must be an object of events`
		}
		return nil, []HookDiagnostic{d}
	}
	events := make([]string, 0, len(doc.Hooks))
	for e := range doc.Hooks {
		events = append(events, e)
	}
	sort.Strings(events)
	var out []CommandHook
	var diags []HookDiagnostic
	bad := func(path, msg string) { diags = append(diags, HookDiagnostic{File: file, Path: path, Message: msg}) }
	for _, ev := range events {
		path := "hooks." + ev
		switch ev {
		case HookPreToolUse, HookPostToolUse, HookUserPromptSubmit, HookPreCompact, HookSessionStart, HookStop:
		default:
			bad(path, fmt.Sprintf("unknown event %q (want PreToolUse, PostToolUse, UserPromptSubmit, PreCompact, SessionStart or Stop)", ev))
			continue
		}
		var groups []json.RawMessage
		if err := json.Unmarshal(doc.Hooks[ev], &groups); err != nil {
			bad(path, "must be a list of {matcher, hooks}")
			continue
		}
		for i, raw := range groups {
			gpath := fmt.Sprintf("%s[%d]", path, i)
			var g struct {
				Matcher string            `json:"matcher"`
				Hooks   []json.RawMessage `json:"hooks"`
			}
			if err := json.Unmarshal(raw, &g); err != nil {
				bad(gpath, "must be {\"matcher\": \"...\", \"hooks\": [...]}: "+err.Error())
				continue
			}
			var re *regexp.Regexp
			if m := strings.TrimSpace(g.Matcher); m != "" && m != "*" {
				var err error
				if re, err = regexp.Compile("(?i)^(?:" + m + ")$"); err != nil {
					bad(gpath+".matcher", fmt.Sprintf("bad pattern %q: %v", g.Matcher, err))
					continue
				}
			}
			if len(g.Hooks) == 0 {
				bad(gpath+".hooks", "no hooks")
			}
			for j, hraw := range g.Hooks {
				hpath := fmt.Sprintf("%s.hooks[%d]", gpath, j)
				var c struct {
					Type    string   `json:"type"`
					Command string   `json:"command"`
					Timeout *float64 `json:"timeout"`
				}
				if err := json.Unmarshal(hraw, &c); err != nil {
					bad(hpath, "must be {\"type\": \"command\", \"command\": \"...\"}: "+err.Error())
					continue
				}
				if c.Type != "command" {
					bad(hpath+".type", fmt.Sprintf("type %q is not supported (want \"command\")", c.Type))
					continue
				}
				if strings.TrimSpace(c.Command) == "" {
					bad(hpath+".command", "empty command")
					continue
				}
				timeout := DefaultHookTimeout
				if c.Timeout != nil {
					if *c.Timeout <= 0 {
						bad(hpath+".timeout", "must be a positive number of seconds")
						continue
					}
					timeout = time.Duration(*c.Timeout * float64(time.Second))
				}
				out = append(out, CommandHook{Event: ev, Matcher: g.Matcher, Command: c.Command, Timeout: timeout, Source: source, File: file, match: re})
			}
		}
	}
	return out, diags
}
