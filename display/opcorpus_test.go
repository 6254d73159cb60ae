package display_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pi-lsp/pi-lsp/display"
)

// opCase is one file of testdata/display-ops: a state at a version, the
// frames that follow, and what the client ends with. The same corpus runs in
// every applier (Go, the VS Code extension, the Neovim plugin, test/node);
// Go's Patch is the specification.
type opCase struct {
	Description string `json:"description"`
	Version     int64  `json:"version"`
	State       any    `json:"state"`
	Frames      []struct {
		Version int64             `json:"version"`
		Ops     []json.RawMessage `json:"ops"`
		State   json.RawMessage   `json:"state"`
	} `json:"frames"`
	Result      string `json:"result"` // applied | error | gap
	WantVersion int64  `json:"wantVersion"`
	WantState   any    `json:"wantState"`
}

func TestOpCorpusPatch(t *testing.T) {
	files, err := filepath.Glob("../testdata/display-ops/*.json")
	if err != nil || len(files) < 30 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c opCase
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatalf("decode: %v", err)
			}
			// Patch applies ops; versions are the client's (rpctest runs
			// those cases). Here: the cases of consecutive op frames.
			doc, v := c.State, c.Version
			for _, fr := range c.Frames {
				if fr.State != nil || fr.Version != v+1 {
					t.Skip("versions: see rpctest's TestOpCorpusVersions")
				}
				ops := make([]display.Op, len(fr.Ops))
				for i, raw := range fr.Ops {
					if err = json.Unmarshal(raw, &ops[i]); err != nil {
						break
					}
				}
				if err == nil {
					doc, err = display.Patch(doc, ops)
				}
				if err != nil {
					if c.Result != "error" {
						t.Fatalf("%s: %v", c.Description, err)
					}
					return
				}
				v = fr.Version
			}
			if c.Result != "applied" {
				t.Fatalf("%s: applied, want %s", c.Description, c.Result)
			}
			if v != c.WantVersion || !reflect.DeepEqual(doc, c.WantState) {
				t.Fatalf("%s:\n got v%d %v\nwant v%d %v", c.Description, v, doc, c.WantVersion, c.WantState)
			}
		})
	}
}
