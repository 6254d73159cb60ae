package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
)

// SubagentDir is the subdirectory (of a cwd's session directory) that holds
// hidden sessions, such as forked subagents. List and ListAll do not look
// into it.
const SubagentDir = "subagents"

// DefaultRoot returns $PI_LSP_SESSIONS, or else ~/.pi/agent/sessions (pi's
// own session directory, so pi and pi-lsp see each other's sessions).
func DefaultRoot() string {
	if d := os.Getenv("PI_LSP_SESSIONS"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = "."
	}
	return filepath.Join(home, ".pi", "agent", "sessions")
}

// DirFor returns the session directory of cwd under root, named exactly as
// pi's getDefaultSessionDir names it: "--" + cwd without its leading
// separator, with "/", "\" and ":" turned into "-", + "--".
func DirFor(root, cwd string) string {
	safe := cwd
	if strings.HasPrefix(safe, "/") || strings.HasPrefix(safe, `\`) {
		safe = safe[1:]
	}
	safe = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(safe)
	return filepath.Join(root, "--"+safe+"--")
}

// newSessionID returns a session id the way pi makes one (uuid v7).
func newSessionID() (string, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("session: new id: %w", err)
	}
	return u.String(), nil
}

// fileNameFor returns pi's file name for a session created at ts (an ISO
// timestamp): the timestamp with ":" and "." turned into "-", "_", the id.
func fileNameFor(ts, id string) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(ts) + "_" + id + ".jsonl"
}

// ensureDir creates dir (0700) and its parents.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("session: create %s: %w", dir, err)
	}
	return nil
}

// syncDir fsyncs a directory so that a new or renamed file in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("session: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("session: sync %s: %w", dir, err)
	}
	return nil
}

// nowISO is the current time as an entry timestamp.
func nowISO() string { return time.Now().UTC().Format(timestampLayoutISO) }
