package session

import (
	"context"
	"testing"
)

// A custom entry left on another branch by a navigate is gone for
// LatestCustom but still the file's latest for LatestCustomInFile, also after
// the session is reopened.
func TestLatestCustomInFileIgnoresTheBranch(t *testing.T) {
	ctx := context.Background()
	s := mustCreate(t)
	if _, ok := s.LatestCustomInFile("pi-lsp/permissions"); ok {
		t.Error("found an entry in an empty session")
	}
	root := must[string](t)(s.AppendMessage(ctx, user("first")))
	must[string](t)(s.AppendCustom(ctx, "pi-lsp/permissions", map[string]any{"grants": map[string]any{"tools": []string{"old"}}}))
	must[string](t)(s.AppendCustom(ctx, "pi-lsp/permissions", map[string]any{"grants": map[string]any{"tools": []string{"bash"}}}))
	must[string](t)(s.AppendMessage(ctx, user("second")))
	if err := s.Navigate(ctx, root); err != nil {
		t.Fatal(err)
	}
	if d, ok := s.LatestCustom("pi-lsp/permissions"); ok {
		t.Errorf("LatestCustom sees an entry off the branch: %s", d)
	}
	want := `{"grants":{"tools":["bash"]}}`
	if d, ok := s.LatestCustomInFile("pi-lsp/permissions"); !ok || string(d) != want {
		t.Errorf("LatestCustomInFile = %s, %v; want %s", d, ok, want)
	}
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if d, ok := r.LatestCustomInFile("pi-lsp/permissions"); !ok || string(d) != want {
		t.Errorf("after reopen: %s, %v; want %s", d, ok, want)
	}
}
