package env

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SandboxMode is how far a command's writes are confined.
type SandboxMode string

// Sandbox modes (after Codex).
const (
	// SandboxWorkspaceWrite lets a command write the workspace roots, the
	// temp directories and the build caches; everything else is read-only.
	SandboxWorkspaceWrite SandboxMode = "workspace-write"
	// SandboxReadOnly lets a command write nothing but /dev/null and the
	// terminal devices.
	SandboxReadOnly SandboxMode = "read-only"
	// SandboxOff runs commands unconfined. It must be chosen explicitly.
	SandboxOff SandboxMode = "off"
)

// ParseSandboxMode checks a mode name.
func ParseSandboxMode(s string) (SandboxMode, error) {
	switch m := SandboxMode(s); m {
	case SandboxWorkspaceWrite, SandboxReadOnly, SandboxOff:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q: want workspace-write|read-only|off", s)
}

// Stricter reports whether m confines at least as much as other.
func (m SandboxMode) Stricter(other SandboxMode) bool { return m.rank() >= other.rank() }

func (m SandboxMode) rank() int {
	switch m {
	case SandboxReadOnly:
		return 2
	case SandboxWorkspaceWrite:
		return 1
	}
	return 0
}

// SandboxSettings configure the sandbox of shell commands (the sandbox
// section of the user's settings).
type SandboxSettings struct {
	// Mode is the sandbox of a mode that may write; "" means off (a
	// library default: pi-lsp itself defaults to workspace-write).
	// Read-only agent modes (Plan) always run commands read-only.
	Mode SandboxMode
	// NoNetwork denies TCP connect and bind where the kernel has Landlock's
	// network rules (ABI 4 and later).
	NoNetwork bool
	// Required refuses to run a command unsandboxed where the kernel has no
	// Landlock.
	Required bool
	// Writable are the extra writable directories of workspace-write; nil
	// means DefaultWritable().
	Writable []string
}

// DefaultWritable are the build caches workspace-write lets commands write:
// $GOCACHE, $GOMODCACHE (else ~/go/pkg/mod), ~/.cache and ~/.npm.
func DefaultWritable() []string {
	home, _ := os.UserHomeDir()
	var out []string
	add := func(p string) {
		if p != "" {
			out = append(out, p)
		}
	}
	add(os.Getenv("GOCACHE"))
	if v := os.Getenv("GOMODCACHE"); v != "" {
		add(v)
	} else if home != "" {
		add(filepath.Join(home, "go", "pkg", "mod"))
	}
	if home != "" {
		add(filepath.Join(home, ".cache"))
		add(filepath.Join(home, ".npm"))
	}
	return out
}

// TempDirs are the temp directories every sandbox mode but read-only lets
// commands write: $TMPDIR, os.TempDir() and /tmp, /var/tmp.
func TempDirs() []string {
	out := []string{os.TempDir(), "/tmp", "/var/tmp"}
	if v := os.Getenv("TMPDIR"); v != "" {
		out = append(out, v)
	}
	return out
}

// SandboxPolicy is what one command runs under.
type SandboxPolicy struct {
	Mode SandboxMode
	// Writable are the directories the command may write (workspace-write).
	Writable  []string
	NoNetwork bool
}

// NoLandlockEnv is the environment switch that makes pi-lsp behave as if
// the kernel had no Landlock (for tests of the fallback on a kernel that has
// it): PI_LSP_NO_LANDLOCK=1.
const NoLandlockEnv = "PI_LSP_NO_LANDLOCK"

// SandboxExecCommand is the hidden subcommand of pi-lsp that restricts
// itself and execs the shell.
const SandboxExecCommand = "__sandbox-exec"

// SandboxAvailable reports whether commands can be sandboxed here, and why
// not when they cannot.
func SandboxAvailable() (ok bool, why string) {
	if v := os.Getenv(NoLandlockEnv); v != "" && v != "0" {
		return false, "Landlock is reported missing (" + NoLandlockEnv + " is set)"
	}
	return landlockAvailable()
}

// sandboxArgs are the helper's arguments for policy p, before "--".
func sandboxArgs(p SandboxPolicy) []string {
	args := []string{SandboxExecCommand, "--mode", string(p.Mode)}
	for _, w := range p.Writable {
		args = append(args, "--rw", w)
	}
	if p.NoNetwork {
		args = append(args, "--no-network")
	}
	return append(args, "--")
}

// ParseSandboxArgs reads the helper's arguments: the policy and the command
// line to exec after "--".
func ParseSandboxArgs(args []string) (SandboxPolicy, []string, error) {
	var p SandboxPolicy
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--mode", "--rw":
			if i+1 >= len(args) {
				return p, nil, fmt.Errorf("%s: missing value", a)
			}
			i++
			if a == "--mode" {
				m, err := ParseSandboxMode(args[i])
				if err != nil {
					return p, nil, err
				}
				p.Mode = m
			} else {
				p.Writable = append(p.Writable, args[i])
			}
		case "--no-network":
			p.NoNetwork = true
		case "--":
			if i+1 >= len(args) {
				return p, nil, fmt.Errorf("no command after --")
			}
			return p, args[i+1:], nil
		default:
			return p, nil, fmt.Errorf("unknown argument %q", a)
		}
	}
	return p, nil, fmt.Errorf("no command after --")
}

// SandboxRefusalHint is appended to the output of a sandboxed command that
// failed with a permission error.
func SandboxRefusalHint(mode SandboxMode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[sandbox] The command ran in the %s sandbox (Landlock), which refuses writes", mode)
	if mode == SandboxWorkspaceWrite {
		b.WriteString(" outside the workspace roots, the temp directories and the build caches")
	}
	b.WriteString(". A \"Permission denied\" above may be the sandbox's refusal. ")
	switch mode {
	case SandboxReadOnly:
		b.WriteString("Read-only agent modes (Plan) cannot write; switch to Build mode to make changes.")
	default:
		b.WriteString("To allow a directory, the user can add it with --root DIR, permissions.roots or sandbox.writable in ~/.pi/agent/pi-lsp.json; sandbox.mode \"off\" turns the sandbox off.")
	}
	return b.String()
}

// LooksDenied reports whether command output shows a permission error, as
// a Landlock refusal (EACCES) prints it.
func LooksDenied(output string) bool {
	for _, s := range []string{"Permission denied", "permission denied", "Read-only file system", "Operation not permitted", "EACCES"} {
		if strings.Contains(output, s) {
			return true
		}
	}
	return false
}

// SandboxCommand returns the argv that runs argv (a program and its
// arguments) under policy p through the sandbox helper, for commands the
// harness starts itself, such as command hooks.
func (l *Local) SandboxCommand(p SandboxPolicy, argv []string) ([]string, error) {
	if l.SandboxHelper == "" {
		return nil, errors.New("sandbox: no sandbox helper is configured")
	}
	return append(append([]string{l.SandboxHelper}, sandboxArgs(p)...), argv...), nil
}

// SandboxCommand forwards to the wrapped Env when it can sandbox commands.
func (e *Editor) SandboxCommand(p SandboxPolicy, argv []string) ([]string, error) {
	s, ok := e.Env.(interface {
		SandboxCommand(SandboxPolicy, []string) ([]string, error)
	})
	if !ok {
		return nil, errors.New("sandbox: this environment cannot sandbox commands")
	}
	return s.SandboxCommand(p, argv)
}
