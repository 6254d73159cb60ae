package langserver

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// ServerConfig is one language server: the command that starts it
// (speaking LSP on stdio) and the file extensions it serves.
type ServerConfig struct {
	Name       string   `json:"-"`
	Command    []string `json:"command"`
	Extensions []string `json:"extensions"`
	// InitializationOptions are sent in initialize (nil: none).
	InitializationOptions any `json:"initializationOptions,omitempty"`
	// Disabled turns a detected default off ("gopls": {"disabled": true}).
	Disabled bool `json:"disabled,omitempty"`
}

// Defaults are the servers pi-lsp knows, before detection on PATH.
func Defaults() []ServerConfig {
	return []ServerConfig{
		{Name: "gopls", Command: []string{"gopls"}, Extensions: []string{".go"}},
		{Name: "typescript-language-server", Command: []string{"typescript-language-server", "--stdio"}, Extensions: []string{".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"}},
		{Name: "pyright-langserver", Command: []string{"pyright-langserver", "--stdio"}, Extensions: []string{".py", ".pyi"}},
		{Name: "rust-analyzer", Command: []string{"rust-analyzer"}, Extensions: []string{".rs"}},
		{Name: "clangd", Command: []string{"clangd"}, Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"}},
	}
}

// Resolve merges configured servers over the defaults: a configured name
// replaces the default of that name, "disabled" removes it, and a default
// whose program is not on PATH (lookPath fails) is left out. Configured
// servers are kept whatever PATH says: starting them reports what is
// missing.
func Resolve(configured map[string]ServerConfig, lookPath func(string) (string, error)) []ServerConfig {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	var out []ServerConfig
	seen := map[string]bool{}
	for _, d := range Defaults() {
		seen[d.Name] = true
		if c, ok := configured[d.Name]; ok {
			if c.Disabled {
				continue
			}
			c.Name = d.Name
			if len(c.Command) == 0 {
				c.Command = d.Command
			}
			if len(c.Extensions) == 0 {
				c.Extensions = d.Extensions
			}
			out = append(out, c)
			continue
		}
		if _, err := lookPath(d.Command[0]); err == nil {
			out = append(out, d)
		}
	}
	names := make([]string, 0, len(configured))
	for n := range configured {
		if !seen[n] {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		c := configured[n]
		if c.Disabled || len(c.Command) == 0 || len(c.Extensions) == 0 {
			continue
		}
		c.Name = n
		out = append(out, c)
	}
	return out
}

// serves reports whether c serves path, by its extension.
func (c ServerConfig) serves(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range c.Extensions {
		if strings.ToLower(e) == ext {
			return true
		}
	}
	return false
}

// languageID is the LSP language identifier of a file.
func languageID(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".go":
		return "go"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh":
		return "cpp"
	}
	return strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
}
