package tools

import (
	"strings"
	"testing"
)

func TestTruncateHead(t *testing.T) {
	line := strings.Repeat("x", 9) // 10 bytes with its newline
	tests := []struct {
		name                 string
		content              string
		maxLines, maxBytes   int
		wantLines            int
		wantTruncated        bool
		wantBy               string
		wantFirstLineTooLong bool
	}{
		{"empty", "", 5, 100, 1, false, "", false},
		{"exactly max lines", strings.Repeat(line+"\n", 4) + line, 5, 1000, 5, false, "", false},
		{"one line over", strings.Repeat(line+"\n", 5) + line, 5, 1000, 5, true, "lines", false},
		{"exactly max bytes", strings.Repeat(line+"\n", 4) + line, 100, 49, 5, false, "", false},
		{"one byte over", strings.Repeat(line+"\n", 4) + line + "y", 100, 49, 4, true, "bytes", false},
		{"first line too long", strings.Repeat("z", 60) + "\nshort", 100, 50, 0, true, "bytes", true},
		{"trailing newline counts a line", strings.Repeat(line+"\n", 5), 5, 1000, 5, true, "lines", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, tr := truncateHead(tt.content, tt.maxLines, tt.maxBytes)
			if tr.Truncated != tt.wantTruncated || tr.TruncatedBy != tt.wantBy || tr.FirstLineExceedsLimit != tt.wantFirstLineTooLong {
				t.Fatalf("truncation = %+v", tr)
			}
			if tr.OutputLines != tt.wantLines {
				t.Fatalf("output lines = %d, want %d", tr.OutputLines, tt.wantLines)
			}
			if len(out) > tt.maxBytes || tr.OutputBytes != len(out) {
				t.Fatalf("output %d bytes (reported %d), limit %d", len(out), tr.OutputBytes, tt.maxBytes)
			}
			if !strings.HasPrefix(tt.content, out) {
				t.Fatal("head truncation must keep a prefix")
			}
		})
	}
}

func TestTruncateTail(t *testing.T) {
	tests := []struct {
		name          string
		content       string
		maxLines      int
		maxBytes      int
		want          string
		wantTruncated bool
		wantBy        string
		wantPartial   bool
	}{
		{"fits", "a\nb\nc", 3, 100, "a\nb\nc", false, "", false},
		{"line limit", "a\nb\nc\nd", 2, 100, "c\nd", true, "lines", false},
		{"byte limit", "aaaa\nbbbb\ncccc", 10, 9, "bbbb\ncccc", true, "bytes", false},
		{"partial last line", "a\n" + strings.Repeat("x", 20), 10, 8, strings.Repeat("x", 8), true, "bytes", true},
		{"partial keeps runes whole", "a\n" + strings.Repeat("é", 10), 10, 7, "ééé", true, "bytes", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, tr := truncateTail(tt.content, tt.maxLines, tt.maxBytes)
			if out != tt.want {
				t.Fatalf("out = %q, want %q", out, tt.want)
			}
			if tr.Truncated != tt.wantTruncated || tr.TruncatedBy != tt.wantBy || tr.LastLinePartial != tt.wantPartial {
				t.Fatalf("truncation = %+v", tr)
			}
		})
	}
}

func TestTruncateLineAndFormatSize(t *testing.T) {
	if s, cut := truncateLine(strings.Repeat("é", 5), 5); cut || s != "ééééé" {
		t.Fatalf("got %q %v", s, cut)
	}
	if s, cut := truncateLine(strings.Repeat("é", 6), 5); !cut || s != "ééééé... [truncated]" {
		t.Fatalf("got %q %v", s, cut)
	}
	for n, want := range map[int]string{0: "0B", 1023: "1023B", 1024: "1.0KB", 51200: "50.0KB", 1536 * 1024: "1.5MB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestOutputTail(t *testing.T) {
	o := newOutputTail(5, 100)
	defer o.close()
	var all strings.Builder
	for i := 0; i < 50; i++ {
		chunk := numberedLines(3, "chunk"+itoa(i)) + "\n"
		all.WriteString(chunk)
		o.write([]byte(chunk))
	}
	text, tr := o.snapshot()
	if !tr.Truncated || tr.TotalLines != 150 || tr.TotalBytes != all.Len() {
		t.Fatalf("truncation = %+v", tr)
	}
	if !strings.HasSuffix(strings.TrimSuffix(all.String(), "\n"), text) {
		t.Fatalf("tail %q is not a suffix of the output", text)
	}
	if o.path == "" {
		t.Fatal("no full output file")
	}
	o.close()
	if got := readFile(t, o.path); got != all.String() {
		t.Fatalf("full output file differs: %d bytes vs %d", len(got), all.Len())
	}
}
