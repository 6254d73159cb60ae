package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUserWidensProjectNarrows(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PI_LSP_SETTINGS", filepath.Join(dir, "user.json"))
	user := write(t, filepath.Join(dir, "user.json"), `{"permissions":{"roots":["/lib"],"outsideWorkspace":"allow","categories":{"execute":"allow"}},"sandbox":{"mode":"workspace-write","network":false,"writable":["/cache"]}}`)
	project := write(t, filepath.Join(dir, "proj", ".pi", "pi-lsp.json"), `{"permissions":{"roots":["/etc"],"outsideWorkspace":"allow","tools":{"bash":"deny","read":"allow"},"categories":{"edit":"ask"}},"sandbox":{"mode":"off","network":true,"required":true,"writable":["/"]},"hooks":{}}`)
	s, err := Load(user, project)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Permissions.Roots, ",") != "/lib" || s.Permissions.OutsideWorkspace != "allow" {
		t.Fatalf("user widening lost or project widening applied: %+v", s.Permissions)
	}
	if s.Permissions.Tools["bash"] != "deny" || s.Permissions.Categories["edit"] != "ask" || s.Permissions.Categories["execute"] != "allow" {
		t.Fatalf("policies: %+v", s.Permissions)
	}
	if _, ok := s.Permissions.Tools["read"]; ok {
		t.Fatal("a project allow was applied")
	}
	if s.Sandbox.Mode != "workspace-write" || *s.Sandbox.Network || !*s.Sandbox.Required || strings.Join(s.Sandbox.Writable, ",") != "/cache" {
		t.Fatalf("sandbox: %+v", s.Sandbox)
	}
	notices := strings.Join(s.Notices, "\n")
	for _, k := range []string{"permissions.roots", "permissions.outsideWorkspace", "permissions.tools.read", "sandbox.mode", "sandbox.network", "sandbox.writable"} {
		if !strings.Contains(notices, k+" is ignored") {
			t.Errorf("no notice for %s: %s", k, notices)
		}
	}
	if strings.Contains(notices, "bash") || strings.Contains(notices, "required") || strings.Contains(notices, "edit") {
		t.Errorf("a narrowing key was reported: %s", notices)
	}
	if _, ok := s.Project.Raw["hooks"]; !ok {
		t.Error("unknown keys are not kept in Raw")
	}
}

func TestStricterProjectSandbox(t *testing.T) {
	dir := t.TempDir()
	project := write(t, filepath.Join(dir, "p.json"), `{"sandbox":{"mode":"read-only"}}`)
	s, err := Load("", project)
	if err != nil || s.Sandbox.Mode != "read-only" || len(s.Notices) != 0 {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"json":    `{`,
		"mode":    `{"sandbox":{"mode":"wide"}}`,
		"outside": `{"permissions":{"outsideWorkspace":"yes"}}`,
		"policy":  `{"permissions":{"tools":{"bash":"maybe"}}}`,
		"type":    `{"permissions":{"roots":"/x"}}`,
	} {
		p := write(t, filepath.Join(dir, name+".json"), content)
		if _, err := Load(p, ""); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if s, err := Load(filepath.Join(dir, "missing.json"), filepath.Join(dir, "missing2.json")); err != nil || s.User != nil {
		t.Fatalf("missing files: %+v %v", s, err)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"permissions":{"roots":["/a"]},"sandbox":{"mode":"off"}}`), []byte(`{"sandbox":{"network":false}}`))
	f.Add([]byte(`{}`), []byte(`{"permissions":{"roots":["/etc"],"outsideWorkspace":"allow"}}`))
	f.Fuzz(func(t *testing.T, user, project []byte) {
		dir := t.TempDir()
		u := filepath.Join(dir, "u.json")
		p := filepath.Join(dir, "p.json")
		_ = os.WriteFile(u, user, 0o600)
		_ = os.WriteFile(p, project, 0o600)
		s, err := Load(u, p)
		if err != nil {
			return
		}
		want := 0
		if s.User != nil && s.User.Permissions != nil {
			want = len(s.User.Permissions.Roots)
		}
		if len(s.Permissions.Roots) != want || (s.Permissions.OutsideWorkspace == "allow" && (s.User == nil || s.User.Permissions == nil || s.User.Permissions.OutsideWorkspace != "allow")) {
			t.Fatal("a project file widened the settings")
		}
	})
}
