package tools

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

func TestRead(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("y", 60*1024)
	f.write(map[string]string{
		"small.txt": "one\ntwo\nthree",
		"2500.txt":  numberedLines(2500, "line"),
		"2000.txt":  numberedLines(2000, "line"),
		"wide.txt":  numberedLines(1000, strings.Repeat("w", 100)),
		"long.txt":  "short\n" + long + "\nafter",
		"bin.dat":   "abc\x00def",
		"sub/x.go":  "package x",
		"crlf.txt":  "a\r\nb\r\n",
	})
	tests := []struct {
		name    string
		args    map[string]any
		want    string // exact text, or prefix/suffix when wantSuffix set
		suffix  string
		isError bool
	}{
		{"whole file", map[string]any{"path": "small.txt"}, "one\ntwo\nthree", "", false},
		{"absolute path", map[string]any{"path": f.dir + "/small.txt"}, "one\ntwo\nthree", "", false},
		{"at prefix", map[string]any{"path": "@small.txt"}, "one\ntwo\nthree", "", false},
		{"file_path alias", map[string]any{"file_path": "small.txt"}, "one\ntwo\nthree", "", false},
		{"offset", map[string]any{"path": "small.txt", "offset": 2}, "two\nthree", "", false},
		{"offset as string", map[string]any{"path": "small.txt", "offset": "2"}, "two\nthree", "", false},
		{"limit with more left", map[string]any{"path": "small.txt", "limit": 1}, "one\n\n[2 more lines in file. Use offset=2 to continue.]", "", false},
		{"offset+limit to the end", map[string]any{"path": "small.txt", "offset": 2, "limit": 5}, "two\nthree", "", false},
		{"offset beyond end", map[string]any{"path": "small.txt", "offset": 4}, "Offset 4 is beyond end of file (3 lines total)", "", true},
		{"exactly 2000 lines", map[string]any{"path": "2000.txt"}, numberedLines(2000, "line"), "", false},
		{"line truncation", map[string]any{"path": "2500.txt"}, "", "line 2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]", false},
		{"line truncation with offset", map[string]any{"path": "2500.txt", "offset": 2001}, "", "line 2500", false},
		{"byte truncation", map[string]any{"path": "wide.txt"}, "", "488\n\n[Showing lines 1-488 of 1000 (50.0KB limit). Use offset=489 to continue.]", false},
		{"first line over limit", map[string]any{"path": "long.txt", "offset": 2}, "[Line 2 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '2p' long.txt | head -c 51200]", "", false},
		{"crlf kept", map[string]any{"path": "crlf.txt"}, "a\r\nb\r\n", "", false},
		{"missing", map[string]any{"path": "nope.txt"}, "File not found: nope.txt", "", true},
		{"directory", map[string]any{"path": "sub"}, "sub is a directory", "", true},
		{"binary", map[string]any{"path": "bin.dat"}, "bin.dat is a binary file", "", true},
		{"no path", map[string]any{}, "read: path is required", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.run("read", tt.args)
			if r.IsError != tt.isError {
				t.Fatalf("isError = %v: %s", r.IsError, r.Text())
			}
			got := r.Text()
			switch {
			case tt.isError && !strings.Contains(got, tt.want):
				t.Fatalf("got %q, want it to contain %q", got, tt.want)
			case !tt.isError && tt.suffix != "" && !strings.HasSuffix(got, tt.suffix):
				t.Fatalf("got ...%q, want suffix %q", tail(got, 120), tt.suffix)
			case !tt.isError && tt.suffix == "" && tt.want != "" && got != tt.want:
				t.Fatalf("got %q, want %q", tail(got, 200), tail(tt.want, 200))
			}
		})
	}
}

func TestReadBadArgsJSON(t *testing.T) {
	f := newFixture(t)
	fails(t, f.run("read", `{"path":"small.txt","offset":"x"}`), "invalid arguments")
	fails(t, f.run("read", `not json`), "invalid arguments")
}

func TestReadScreenshotName(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{"Shot 10.22.33\u202FPM.png.txt": "screenshot"})
	if got := ok(t, f.run("read", map[string]any{"path": "Shot 10.22.33 PM.png.txt"})); got != "screenshot" {
		t.Fatalf("got %q", got)
	}
}

func TestReadTruncationDetails(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{"big.txt": numberedLines(2500, "line")})
	r := f.run("read", map[string]any{"path": "big.txt"})
	tr := details(t, r)["truncation"].(map[string]any)
	if tr["truncatedBy"] != "lines" || tr["outputLines"].(float64) != 2000 || tr["totalLines"].(float64) != 2500 {
		t.Fatalf("truncation details %v", tr)
	}
}

func TestReadImage(t *testing.T) {
	f := newFixture(t)
	png := "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 20)
	f.write(map[string]string{"pic.png": png, "pic.webp": "RIFF\x00\x00\x00\x00WEBPVP8 ", "huge.jpg": "\xFF\xD8\xFF" + strings.Repeat("a", maxImageBytes)})
	r := f.run("read", map[string]any{"path": "pic.png"})
	ok(t, r)
	if len(r.Content) != 2 || r.Content[1].Type != llm.BlockImage || r.Content[1].MimeType != "image/png" {
		t.Fatalf("content %+v", r.Content)
	}
	if data, _ := base64.StdEncoding.DecodeString(r.Content[1].Data); string(data) != png {
		t.Fatal("image data differs")
	}
	if r.Display != "Read image file [image/png]" {
		t.Fatalf("display %q", r.Display)
	}
	if r := f.run("read", map[string]any{"path": "pic.webp"}); r.Content[1].MimeType != "image/webp" {
		t.Fatalf("webp: %+v", r.Content)
	}
	r = f.run("read", map[string]any{"path": "huge.jpg"})
	if len(r.Content) != 1 || !strings.Contains(r.Text(), "Image omitted") {
		t.Fatalf("huge image: %s", r.Text())
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("…%s", s[len(s)-n:])
}
