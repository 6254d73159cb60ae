package harness

import (
	"fmt"
	"os"

	"github.com/pi-lsp/pi-lsp/env"
)

// sessionTrust says whether the grants recorded in the session at path may
// be restored: only from a file in the user's own sessions directory,
// owned by the user, with no group or other permission bits (0600). Any
// other session (opened by a path, shared, downloaded) keeps its deny rules
// and mode, but not its YOLO flag, allow policies or grants: a session file
// cannot widen what the server was started with.
func (h *Harness) sessionTrust(path string) (trusted bool, why string) {
	real := env.ResolveLinks(path)
	if !env.Within(real, env.ResolveLinks(h.sessionsRoot())) {
		return false, fmt.Sprintf("it is not in your sessions directory (%s)", h.sessionsRoot())
	}
	fi, err := os.Stat(real)
	if err != nil {
		return false, fmt.Sprintf("it cannot be checked (%v)", err)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return false, fmt.Sprintf("it is owned by uid %d, not by you", uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return false, fmt.Sprintf("its mode is %04o, not 0600", fi.Mode().Perm())
	}
	return true, ""
}

// narrowPermissions keeps what a session's recorded permissions may keep
// when it is not trusted: its deny and ask rules over the current ones. It
// reports whether anything (an allow policy or a grant) was left out.
func narrowPermissions(cur, recorded Permissions) (Permissions, bool) {
	out := cur.clone()
	out.Grants = Grants{}
	dropped := len(recorded.Grants.Tools)+len(recorded.Grants.Categories)+len(recorded.Grants.Paths) > 0
	for k, v := range recorded.Tools {
		if v == PolicyAllow {
			dropped = dropped || out.Tools[k] != PolicyAllow
			continue
		}
		out.Tools[k] = v
	}
	for k, v := range recorded.Categories {
		if v == PolicyAllow {
			dropped = dropped || out.Categories[k] != PolicyAllow
			continue
		}
		out.Categories[k] = v
	}
	return out, dropped
}

// untrustedNotice is what the editor is told when a session's grants were
// not restored.
func untrustedNotice(path, why string) string {
	return fmt.Sprintf("Session %s was opened without its grants: %s. Its deny rules and mode apply; its YOLO setting, allow policies and approvals granted were not restored. Approvals will be asked again.", path, why)
}
