package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestEdit(t *testing.T) {
	type E = map[string]string
	tests := []struct {
		name    string
		file    string
		args    map[string]any
		want    string // file content afterwards
		wantErr string // error result text contains
	}{
		{"single", "a\nb\nc\n", map[string]any{"edits": []E{{"oldText": "b", "newText": "B"}}}, "a\nB\nc\n", ""},
		{"multiple disjoint", "one\ntwo\nthree\n", map[string]any{"edits": []E{
			{"oldText": "three", "newText": "3"}, {"oldText": "one", "newText": "1"}}}, "1\ntwo\n3\n", ""},
		{"matched against the original", "x y\n", map[string]any{"edits": []E{
			{"oldText": "x", "newText": "y"}, {"oldText": "y", "newText": "z"}}}, "y z\n", ""},
		{"legacy oldText/newText", "a\nb\n", map[string]any{"oldText": "a", "newText": "A"}, "A\nb\n", ""},
		{"edits as JSON string", "a\nb\n", map[string]any{"edits": `[{"oldText":"b","newText":"B"}]`}, "a\nB\n", ""},
		{"delete text", "keep drop keep\n", map[string]any{"edits": []E{{"oldText": " drop", "newText": ""}}}, "keep keep\n", ""},
		{"not found", "a\n", map[string]any{"edits": []E{{"oldText": "zzz", "newText": "y"}}}, "",
			"Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."},
		{"not found among several", "a\nb\n", map[string]any{"edits": []E{{"oldText": "a", "newText": "y"}, {"oldText": "q", "newText": "y"}}}, "",
			"Could not find edits[1] in f.txt."},
		{"duplicate", "x\nx\n", map[string]any{"edits": []E{{"oldText": "x", "newText": "y"}}}, "",
			"Found 2 occurrences of the text in f.txt. The text must be unique."},
		{"overlapping duplicate", "aaa", map[string]any{"edits": []E{{"oldText": "aa", "newText": "b"}}}, "", "Found 2 occurrences"},
		{"overlap", "abcdef\n", map[string]any{"edits": []E{{"oldText": "abcd", "newText": "1"}, {"oldText": "cdef", "newText": "2"}}}, "",
			"edits[0] and edits[1] overlap in f.txt."},
		{"empty oldText", "a\n", map[string]any{"edits": []E{{"oldText": "", "newText": "y"}}}, "", "oldText must not be empty in f.txt."},
		{"no change", "a\n", map[string]any{"edits": []E{{"oldText": "a", "newText": "a"}}}, "", "No changes made to f.txt."},
		{"no edits", "a\n", map[string]any{"edits": []E{}}, "", "edits must contain at least one replacement"},
		{"edits wrong type", "a\n", map[string]any{"edits": 5}, "", "edits must be an array"},
		// Fuzzy fallback.
		{"trailing whitespace in file", "func f() {   \n\treturn 1\t\n}\n", map[string]any{"edits": []E{
			{"oldText": "func f() {\n\treturn 1\n}", "newText": "func f() {\n\treturn 2\n}"}}}, "func f() {\n\treturn 2\n}\n", ""},
		{"trailing whitespace in oldText", "a\nb\n", map[string]any{"edits": []E{{"oldText": "a  \nb", "newText": "c"}}}, "c\n", ""},
		{"smart quotes in file", "say(\u201chello\u201d) // it\u2019s\nother \u201cq\u201d\n", map[string]any{"edits": []E{
			{"oldText": `say("hello") // it's`, "newText": `say("bye")`}}}, "say(\"bye\")\nother \u201cq\u201d\n", ""},
		{"dashes and nbsp", "a \u2014 b\u00a0c\n", map[string]any{"edits": []E{{"oldText": "a - b c", "newText": "x"}}}, "x\n", ""},
		{"fuzzy keeps the rest byte for byte", "keep   \nx \u2013 y\nkeep\u2019s   \n", map[string]any{"edits": []E{
			{"oldText": "x - y", "newText": "z"}}}, "keep   \nz\nkeep\u2019s   \n", ""},
		{"fuzzy duplicate", "\u201ca\u201d\n\"a\"x\n", map[string]any{"edits": []E{{"oldText": "'a'", "newText": "b"}}}, "",
			"Could not find"},
		{"fuzzy duplicate found twice", "\u201ca\u201d\n\u201ca\u201d\n", map[string]any{"edits": []E{{"oldText": `"a"`, "newText": "b"}}}, "",
			"Found 2 occurrences"},
		{"mixed exact and fuzzy", "one\u2019s\ntwo\n", map[string]any{"edits": []E{
			{"oldText": "two", "newText": "2"}, {"oldText": "one's", "newText": "1"}}}, "1\n2\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(map[string]string{"f.txt": tt.file})
			args := map[string]any{"path": "f.txt"}
			for k, v := range tt.args {
				args[k] = v
			}
			r := f.run("edit", args)
			if tt.wantErr != "" {
				fails(t, r, tt.wantErr)
				if got := f.read("f.txt"); got != tt.file {
					t.Fatalf("file changed on error: %q", got)
				}
				return
			}
			ok(t, r)
			if got := f.read("f.txt"); got != tt.want {
				t.Fatalf("file = %q, want %q", got, tt.want)
			}
			if r.Path != filepath.Join(f.dir, "f.txt") || r.Diff == "" {
				t.Fatalf("path %q diff %q", r.Path, r.Diff)
			}
		})
	}
}

func TestEditLineEndingsAndBOM(t *testing.T) {
	tests := []struct{ name, file, old, new, want string }{
		{"crlf kept", "a\r\nb\r\nc\r\n", "a\nb", "x\ny\nz", "x\r\ny\r\nz\r\nc\r\n"},
		{"crlf oldText on crlf file", "a\r\nb\r\n", "a\r\nb", "q", "q\r\n"},
		{"bom kept", "\uFEFFhello\n", "hello", "bye", "\uFEFFbye\n"},
		{"bom and crlf", "\uFEFFa\r\nb\r\n", "b", "c", "\uFEFFa\r\nc\r\n"},
		{"lf file stays lf", "a\nb\n", "a\r\nb", "c\r\nd", "c\nd\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(map[string]string{"f.txt": tt.file})
			ok(t, f.run("edit", map[string]any{"path": "f.txt", "edits": []map[string]string{{"oldText": tt.old, "newText": tt.new}}}))
			if got := f.read("f.txt"); got != tt.want {
				t.Fatalf("file = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEditMissingFileAndMode(t *testing.T) {
	f := newFixture(t)
	fails(t, f.run("edit", map[string]any{"path": "nope.go", "edits": []map[string]string{{"oldText": "a", "newText": "b"}}}), "File not found: nope.go")
	f.write(map[string]string{"run.sh": "echo a\n"})
	if err := os.Chmod(filepath.Join(f.dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	ok(t, f.run("edit", map[string]any{"path": "run.sh", "edits": []map[string]string{{"oldText": "a", "newText": "b"}}}))
	if fi, _ := os.Stat(filepath.Join(f.dir, "run.sh")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

func TestEditDetailsAndUnifiedDiffApply(t *testing.T) {
	f := newFixture(t)
	orig := numberedLines(30, "line") + "\n"
	f.write(map[string]string{"f.txt": orig, "orig.txt": orig})
	r := f.run("edit", map[string]any{"path": "f.txt", "edits": []map[string]string{
		{"oldText": "line 3\n", "newText": "three\n"}, {"oldText": "line 25\n", "newText": "twenty-five\nextra\n"}}})
	ok(t, r)
	d := details(t, r)
	if d["firstChangedLine"].(float64) != 3 || !strings.Contains(d["diff"].(string), "- 3 line 3\n+ 3 three") {
		t.Fatalf("details %v", d)
	}
	// The unified diff applies with patch(1) to the original and gives the new file.
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch(1) not installed")
	}
	patchFile := filepath.Join(f.dir, "d.patch")
	if err := os.WriteFile(patchFile, []byte(r.Diff), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("patch", "-s", filepath.Join(f.dir, "orig.txt"), patchFile).CombinedOutput()
	if err != nil {
		t.Fatalf("patch: %v\n%s\ndiff:\n%s", err, out, r.Diff)
	}
	if f.read("orig.txt") != f.read("f.txt") {
		t.Fatal("patched original differs from edited file")
	}
}

func TestParallelEditsOfOneFile(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for i := 0; i < 20; i++ {
		b.WriteString("k" + itoa(i) + "\n")
	}
	f.write(map[string]string{"f.txt": b.String()})
	done := make(chan Result)
	for i := 0; i < 20; i++ {
		go func(i int) {
			done <- f.run("edit", map[string]any{"path": "f.txt", "edits": []map[string]string{{"oldText": "k" + itoa(i) + "\n", "newText": "v" + itoa(i) + "\n"}}})
		}(i)
	}
	for i := 0; i < 20; i++ {
		ok(t, <-done)
	}
	got := f.read("f.txt")
	for i := 0; i < 20; i++ {
		if !strings.Contains(got, "v"+itoa(i)+"\n") {
			t.Fatalf("edit %d lost: %q", i, got)
		}
	}
}
