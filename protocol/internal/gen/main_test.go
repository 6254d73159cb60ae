package main

import (
	"os"
	"testing"
)

// TestGeneratedFilesAreFresh regenerates the client types and fails when the
// committed files differ: run `go generate ./protocol`.
func TestGeneratedFilesAreFresh(t *testing.T) {
	g, err := load("../..")
	if err != nil {
		t.Fatal(err)
	}
	ts, schema, err := g.generate()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{"../../../editors/vscode/src/protocol.gen.ts": ts, "../../protocol.schema.json": schema} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run `go generate ./protocol`", path)
		}
	}
}
