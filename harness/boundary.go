package harness

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/tools"
)

// PathGrant is a standing "always allow" for a path outside the workspace:
// reads (and, with Write, writes) of Path and everything under it. It is
// stored with the other grants in the pi-lsp/permissions entry.
type PathGrant struct {
	Path  string `json:"path"`
	Write bool   `json:"write,omitempty"`
}

// DecisionAlwaysAllowPath approves the call and grants its outside path's
// directory (the directory itself for ls, grep and find) for the session.
const DecisionAlwaysAllowPath Decision = "alwaysAllowPath"

// outsideAccess is the first access of a call that falls outside the
// workspace and is covered by no path grant.
type outsideAccess struct {
	resolved string
	write    bool
	isDir    bool
}

// workspace builds the boundary: the cwd and the extra roots read-write;
// the agent's skill and prompt directories, the skill paths and the bash
// spill directory read-only.
func newWorkspace(cfg Config) *env.Workspace {
	roots := []string{}
	if cfg.Env != nil {
		roots = append(roots, cfg.Env.Cwd())
	}
	roots = append(roots, cfg.Roots...)
	read := append([]string{}, cfg.SkillPaths...)
	if cfg.AgentDir != "" {
		read = append(read, filepath.Join(cfg.AgentDir, "skills"), filepath.Join(cfg.AgentDir, "prompts"))
	}
	read = append(read, tools.SpillDir())
	return env.NewWorkspace(roots, read)
}

// Workspace is the boundary tool paths are judged against.
func (h *Harness) Workspace() *env.Workspace { return h.ws }

// judgeAccesses returns the first access of call outside the workspace
// that no path grant covers, or nil when every path is inside (or the tool
// names none, or the server was started with --allow-outside).
func (h *Harness) judgeAccesses(t tools.Tool, call tools.Call, grants []PathGrant) *outsideAccess {
	pt, ok := t.(tools.PathTool)
	if !ok || h.cfg.AllowOutside {
		return nil
	}
	for _, a := range pt.Accesses(call, h.cfg.Env) {
		resolved, inside := h.ws.Judge(a.Path, a.Write)
		if inside || pathGranted(grants, resolved, a.Write) {
			continue
		}
		fi, err := os.Stat(resolved)
		return &outsideAccess{resolved: resolved, write: a.Write, isDir: err == nil && fi.IsDir()}
	}
	return nil
}

func pathGranted(grants []PathGrant, resolved string, write bool) bool {
	for _, g := range grants {
		if (g.Write || !write) && env.Within(resolved, g.Path) {
			return true
		}
	}
	return false
}

// grantPath records a path grant for the directory of an outside access.
func (h *Harness) grantPathLocked(o *outsideAccess) {
	dir := o.resolved
	if !o.isDir {
		dir = filepath.Dir(dir)
	}
	for i, g := range h.perms.Grants.Paths {
		if g.Path == dir {
			h.perms.Grants.Paths[i].Write = g.Write || o.write
			return
		}
	}
	h.perms.Grants.Paths = append(h.perms.Grants.Paths, PathGrant{Path: dir, Write: o.write})
	sort.Slice(h.perms.Grants.Paths, func(i, j int) bool { return h.perms.Grants.Paths[i].Path < h.perms.Grants.Paths[j].Path })
}

// Policies are standing policies from the settings files.
type Policies struct {
	Tools      map[string]Policy
	Categories map[string]Policy
}

// apply sets the policies over p.
func (c Policies) apply(p Permissions) Permissions {
	p = p.clone()
	for k, v := range c.Tools {
		p.Tools[k] = v
	}
	for k, v := range c.Categories {
		p.Categories[k] = v
	}
	return p
}

// enforceDenies keeps the settings' denies over a restored p: a session
// cannot lift them.
func (c Policies) enforceDenies(p Permissions) Permissions {
	for k, v := range c.Tools {
		if v == PolicyDeny {
			p.Tools[k] = v
		}
	}
	for k, v := range c.Categories {
		if v == PolicyDeny {
			p.Categories[k] = v
		}
	}
	return p
}
