package protocol

// The wire fields of the workspace boundary and the command sandbox
// (issue 16). rpc still marshals the harness's own types, which carry the
// same fields with the same JSON names; these are the types rpc converts to
// once the native wire's types move here.

// ApprovalBoundary are the members ui/requestApproval params carry about the
// workspace boundary.
type ApprovalBoundary struct {
	// OutsideWorkspace is true when the call reads or writes a path outside
	// the workspace roots (links resolved). Such a call asks even under
	// YOLO.
	OutsideWorkspace bool `json:"outsideWorkspace"`
	// ResolvedPath is that path, absolute, every symbolic link resolved.
	ResolvedPath string `json:"resolvedPath,omitempty"`
	// Access is "read" or "write".
	Access string `json:"access,omitempty"`
}

// DecisionAlwaysAllowPath is the ui/requestApproval decision that approves
// a call outside the workspace and grants its directory for the session
// (reads, and writes when the call writes).
const DecisionAlwaysAllowPath Decision = "alwaysAllowPath"

// PathGrant is one per-path grant, in permissions/get's grants.paths.
type PathGrant struct {
	Path  string `json:"path"`
	Write bool   `json:"write,omitempty"`
}

// Sandbox modes of DisplayState.sandbox and session/state's sandbox.mode.
const (
	SandboxWorkspaceWrite = "workspace-write"
	SandboxReadOnly       = "read-only"
	SandboxOff            = "off"
	SandboxUnavailable    = "unavailable" // no Landlock: commands run unsandboxed
)

// SandboxState is session/state's sandbox member.
type SandboxState struct {
	Mode      string `json:"mode"`
	Available bool   `json:"available"`
	Network   bool   `json:"network"`
	Required  bool   `json:"required"`
	Reason    string `json:"reason,omitempty"`
}

// CodeNotSession is the error code of a file opened as a session that is
// not one.
const CodeNotSession = -32006
