package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/gofrs/flock"
)

// Settings keys of the user's pi-lsp.json that hold one-time approvals.
// enabledMcpjsonServers and disabledMcpjsonServers are Claude Code's names;
// their entries here are ServerConfig.ApprovalKey values.
const (
	KeyEnabledServers  = "enabledMcpjsonServers"
	KeyDisabledServers = "disabledMcpjsonServers"
	KeyEnabledHooks    = "enabledProjectHooks"
	KeyDisabledHooks   = "disabledProjectHooks"
)

// Trust is the store of one-time approvals in the user's settings file
// (~/.pi/agent/pi-lsp.json). Only this file is read for them: a project
// file can never approve itself. Writes keep every other key of the file.
// A Trust with an empty path remembers nothing (every ask is asked again).
type Trust struct {
	path string
	mu   sync.Mutex
}

// NewTrust returns the store backed by the settings file at path.
func NewTrust(path string) *Trust { return &Trust{path: path} }

// Path is the settings file.
func (t *Trust) Path() string {
	if t == nil {
		return ""
	}
	return t.path
}

// Verdict is what the file says about key: approved, refused, or unknown.
func (t *Trust) Verdict(enabledKey, disabledKey, key string) (approved, known bool, err error) {
	if t == nil || t.path == "" {
		return false, false, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	doc, err := t.read()
	if err != nil {
		return false, false, err
	}
	if slices.Contains(stringList(doc[disabledKey]), key) {
		return false, true, nil
	}
	if slices.Contains(stringList(doc[enabledKey]), key) {
		return true, true, nil
	}
	return false, false, nil
}

// Remember records the answer for key (in enabledKey when approved, else in
// disabledKey), removing it from the other list.
func (t *Trust) Remember(enabledKey, disabledKey, key string, approved bool) error {
	if t == nil || t.path == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	lock := flock.New(t.path + ".lock")
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("settings: lock %s: %w", t.path, err)
	}
	defer func() { _ = lock.Unlock() }()
	doc, err := t.read()
	if err != nil {
		return err
	}
	add, del := enabledKey, disabledKey
	if !approved {
		add, del = disabledKey, enabledKey
	}
	on := stringList(doc[add])
	if !slices.Contains(on, key) {
		on = append(on, key)
	}
	off := slices.DeleteFunc(stringList(doc[del]), func(s string) bool { return s == key })
	doc[add] = mustRaw(on)
	if len(off) > 0 {
		doc[del] = mustRaw(off)
	} else {
		delete(doc, del)
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	tmp := t.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if err := os.Rename(tmp, t.path); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	return nil
}

func (t *Trust) read() (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	doc := map[string]json.RawMessage{}
	if len(data) == 0 {
		return doc, nil
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("settings: %s: %w", t.path, err)
	}
	return doc, nil
}

func stringList(raw json.RawMessage) []string {
	var out []string
	_ = json.Unmarshal(raw, &out)
	return out
}

func mustRaw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
