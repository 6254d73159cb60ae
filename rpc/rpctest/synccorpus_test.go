package rpctest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// syncCase is one file of testdata/display-sync: frames and snapshot
// answers in the order a client receives them, and what it must hold after.
type syncCase struct {
	Description string `json:"description"`
	Steps       []struct {
		Frame    *SyncFrame    `json:"frame"`
		Ask      string        `json:"ask"`
		Answer   string        `json:"answer"`
		Snapshot *SyncSnapshot `json:"snapshot"`
	} `json:"steps"`
	Want struct {
		Stream  string `json:"stream"`
		Version int64  `json:"version"`
		Synced  bool   `json:"synced"`
		State   any    `json:"state"`
	} `json:"want"`
}

// TestSyncCorpus runs testdata/display-sync through Sync, the rules the Go
// client follows (the editors run the same files).
func TestSyncCorpus(t *testing.T) {
	files, err := filepath.Glob("../../testdata/display-sync/*.json")
	if err != nil || len(files) < 10 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c syncCase
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatalf("decode: %v", err)
			}
			var s Sync
			asked := map[string]string{}
			for i, st := range c.Steps {
				switch {
				case st.Frame != nil:
					s.Frame(*st.Frame)
				case st.Ask != "":
					asked[st.Ask] = s.Stream
				case st.Answer != "" && st.Snapshot != nil:
					a, ok := asked[st.Answer]
					if !ok {
						t.Fatalf("step %d: answer to %q, never asked", i, st.Answer)
					}
					s.Snapshot(*st.Snapshot, a)
				default:
					t.Fatalf("step %d: neither frame, ask nor answer", i)
				}
			}
			if s.Err != nil {
				t.Fatalf("%s: %v", c.Description, s.Err)
			}
			w := c.Want
			if s.Stream != w.Stream || s.Synced != w.Synced {
				t.Fatalf("%s:\n got stream %q synced %v, want %q %v", c.Description, s.Stream, s.Synced, w.Stream, w.Synced)
			}
			if w.Synced && (s.Version != w.Version || !reflect.DeepEqual(s.Doc, w.State)) {
				t.Fatalf("%s:\n got v%d %v\nwant v%d %v", c.Description, s.Version, s.Doc, w.Version, w.State)
			}
		})
	}
}
