package rpctest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestOpCorpusVersions runs testdata/display-ops through the Go client's
// frame folding: versions, gaps, stale frames and state frames, with
// display.Patch applying the ops.
func TestOpCorpusVersions(t *testing.T) {
	files, err := filepath.Glob("../../testdata/display-ops/*.json")
	if err != nil || len(files) < 30 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c struct {
				Description string            `json:"description"`
				Version     int64             `json:"version"`
				State       any               `json:"state"`
				Frames      []json.RawMessage `json:"frames"`
				Result      string            `json:"result"`
				WantVersion int64             `json:"wantVersion"`
				WantState   any               `json:"wantState"`
			}
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatalf("decode: %v", err)
			}
			d := &Display{Sync: Sync{Version: c.Version, Doc: c.State, Synced: true}}
			for _, fr := range c.Frames {
				d.apply(fr, len(fr))
				if !d.Synced {
					break
				}
			}
			got := "applied"
			switch {
			case d.Err != nil:
				got = "error"
			case d.Gaps > 0:
				got = "gap"
			}
			if got != c.Result {
				t.Fatalf("%s: %s (%v), want %s", c.Description, got, d.Err, c.Result)
			}
			if got == "applied" && (d.Version != c.WantVersion || !reflect.DeepEqual(d.Doc, c.WantState)) {
				t.Fatalf("%s:\n got v%d %v\nwant v%d %v", c.Description, d.Version, d.Doc, c.WantVersion, c.WantState)
			}
		})
	}
}
