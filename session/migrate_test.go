package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var (
	v1Lines = []string{
		`{"type":"session","id":"v1-session","timestamp":"2024-10-01T10:00:00.000Z","cwd":"/old"}`,
		`{"type":"message","timestamp":"2024-10-01T10:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}`,
		`{"type":"message","timestamp":"2024-10-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"r1"}],"api":"x","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}`,
		`{"type":"message","timestamp":"2024-10-01T10:00:03.000Z","message":{"role":"user","content":"second","timestamp":3}}`,
		`{"type":"thinking_level_change","timestamp":"2024-10-01T10:00:04.000Z","thinkingLevel":"medium"}`,
		`{"type":"compaction","timestamp":"2024-10-01T10:00:05.000Z","summary":"old stuff","firstKeptEntryIndex":3,"tokensBefore":900,"legacy":"kept"}`,
		`{"type":"message","timestamp":"2024-10-01T10:00:06.000Z","message":{"role":"user","content":"third","timestamp":4}}`,
	}
	v1Want = []string{"compactionSummary:old stuff", "user:second", "user:third"}

	v2Lines = []string{
		`{"type":"session","version":2,"id":"v2-session","timestamp":"2024-11-01T10:00:00.000Z","cwd":"/old"}`,
		`{"type":"message","id":"aa000001","parentId":null,"timestamp":"2024-11-01T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`,
		`{"type":"message","id":"aa000002","parentId":"aa000001","timestamp":"2024-11-01T10:00:02.000Z","message":{"role":"hookMessage","customType":"ext","content":"from a hook","display":true,"timestamp":2}}`,
	}
	v2Want = []string{"user:hi", "custom:from a hook"}
)

func TestMigration(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		want    []string
		version int
		check   func(t *testing.T, s *Session)
	}{
		{"v1", v1Lines, v1Want, 1, func(t *testing.T, s *Session) {
			b := must[[]*Entry](t)(s.Branch(""))
			if len(b) != 6 || b[0].ParentID != "" || b[1].ParentID != b[0].ID || b[4].Type != TypeCompaction || b[4].FirstKeptEntryID != b[2].ID {
				t.Fatalf("migrated tree wrong: %+v", b)
			}
			if strings.Contains(string(b[4].Raw), "firstKeptEntryIndex") || !strings.Contains(string(b[4].Raw), `"legacy":"kept"`) {
				t.Errorf("compaction raw %s", b[4].Raw)
			}
			if c := must[Context](t)(s.BuildContext(context.Background())); c.ThinkingLevel != "medium" {
				t.Errorf("thinking %s", c.ThinkingLevel)
			}
		}},
		{"v2", v2Lines, v2Want, 2, func(t *testing.T, s *Session) {
			e := must[*Entry](t)(s.Entry("aa000002"))
			if e.Message.Role != "custom" || !strings.Contains(string(e.Raw), `"role":"custom"`) || strings.Contains(string(e.Raw), "hookMessage") {
				t.Errorf("v2 hookMessage not renamed: %s", e.Raw)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeLines(t, dir, tc.lines...)
			orig, _ := os.ReadFile(path)

			// Read-only: migrated in memory, file untouched.
			ro := mustOpen(t, path, true)
			if ro.FileVersion() != tc.version || ro.Header().Version != 3 {
				t.Errorf("versions %d %d", ro.FileVersion(), ro.Header().Version)
			}
			if got := contextTexts(t, ro); !equalStrings(got, tc.want) {
				t.Errorf("read-only context %v", got)
			}
			tc.check(t, ro)
			if now, _ := os.ReadFile(path); string(now) != string(orig) {
				t.Error("read-only open changed the file")
			}
			ro.Close()

			// Writable: rewritten as v3 (original kept), then appendable.
			rw := mustOpen(t, path, false)
			if rw.FileVersion() != 3 {
				t.Errorf("file version after writable open %d", rw.FileVersion())
			}
			if got := contextTexts(t, rw); !equalStrings(got, tc.want) {
				t.Errorf("rewritten context %v", got)
			}
			tc.check(t, rw)
			if bak, err := os.ReadFile(fmt.Sprintf("%s.v%d.bak", path, tc.version)); err != nil || string(bak) != string(orig) {
				t.Errorf("backup: %v", err)
			}
			if _, err := rw.AppendMessage(context.Background(), user("new")); err != nil {
				t.Fatal(err)
			}
			rw.Close()
			again := mustOpen(t, path, true)
			if got := contextTexts(t, again); !equalStrings(got, append(tc.want, "user:new")) {
				t.Errorf("after append %v", got)
			}
			if !strings.HasPrefix(fileLines(t, path)[0], `{"type":"session","version":3,`) {
				t.Errorf("header not v3: %s", fileLines(t, path)[0])
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
				t.Errorf("mode %v", st.Mode().Perm())
			}
			matches, _ := filepath.Glob(filepath.Join(dir, ".migrate-*"))
			if len(matches) != 0 {
				t.Errorf("temp files left: %v", matches)
			}
		})
	}
}

func TestFieldSurgery(t *testing.T) {
	tests := []struct {
		in, op, key, val, want string
	}{
		{`{"a":1,"b":2}`, "set", "a", `"x"`, `{"a":"x","b":2}`},
		{`{"a":1,"b":2}`, "set", "c", `null`, `{"a":1,"b":2,"c":null}`},
		{`{}`, "set", "c", `3`, `{"c":3}`},
		{`{ "a" : {"b":[1,"}"]} , "c":true }`, "set", "a", `0`, `{ "a" : 0 , "c":true }`},
		{`{"a":1,"a":2}`, "set", "a", `3`, `{"a":1,"a":3}`},
		{`{"a":1,"b":2,"c":3}`, "del", "b", ``, `{"a":1,"c":3}`},
		{`{"a":1,"b":2}`, "del", "b", ``, `{"a":1}`},
		{`{"a":1}`, "del", "a", ``, `{}`},
		{`{"a":1,"b":2,"a":3}`, "del", "a", ``, `{"b":2}`},
		{`{"\u0061":1}`, "set", "a", `2`, `{"\u0061":2}`},
	}
	for _, tc := range tests {
		var got []byte
		var err error
		if tc.op == "set" {
			got, err = setMember([]byte(tc.in), tc.key, []byte(tc.val))
		} else {
			got, err = deleteMember([]byte(tc.in), tc.key)
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%s %s on %s = %s (%v), want %s", tc.op, tc.key, tc.in, got, err, tc.want)
		}
	}
	if _, err := setMember([]byte(`{"a":`), "a", []byte("1")); err == nil {
		t.Error("set on a torn object succeeded")
	}
}
