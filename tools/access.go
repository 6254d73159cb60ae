package tools

import (
	"encoding/json"

	"github.com/pi-lsp/pi-lsp/env"
)

// Access is one file-system path a tool call will read or write, made
// absolute against the env's cwd (links not yet resolved: the harness judges
// the resolved path against the workspace boundary).
type Access struct {
	Path  string
	Write bool // write, edit or delete; false = read
}

// PathTool is implemented by tools whose calls name the paths they touch
// (read, write, edit, ls, grep, find). The harness asks it before running a
// call, to apply the workspace boundary. A tool that does not implement it
// (bash, MCP tools) is judged by its category alone.
type PathTool interface {
	Accesses(call Call, e env.Env) []Access
}

// Accesses lists the paths a built-in tool's call names. Arguments that do
// not decode name no path: the tool rejects them itself.
func (b *builtin) Accesses(call Call, e env.Env) []Access {
	if b.access == nil || e == nil {
		return nil
	}
	return b.access(call.Args, e)
}

// pathArgs are the path arguments the file tools accept.
type pathArgs struct {
	Path     string `json:"path"`
	FilePath string `json:"file_path"`
}

// fileAccess is the access of read, write and edit: their one file.
func fileAccess(write bool) func(json.RawMessage, env.Env) []Access {
	return func(raw json.RawMessage, e env.Env) []Access {
		var a pathArgs
		if decodeArgs(raw, &a) != nil {
			return nil
		}
		if a.Path == "" {
			a.Path = a.FilePath
		}
		if a.Path == "" {
			return nil
		}
		return []Access{{Path: resolvePath(e, a.Path), Write: write}}
	}
}

// rootAccess is the access of ls, grep and find: the directory (or file)
// they search, the cwd by default.
func rootAccess(raw json.RawMessage, e env.Env) []Access {
	var a pathArgs
	if decodeArgs(raw, &a) != nil {
		return nil
	}
	return []Access{{Path: resolvePath(e, orDot(a.Path))}}
}
