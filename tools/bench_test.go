package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

// benchTree writes dirs×files files of 200 lines each, with a .gitignore in
// every directory.
func benchTree(b *testing.B, dirs, files int) string {
	b.Helper()
	root := b.TempDir()
	body := numberedLines(200, "some ordinary source line") + "\nfunc Hay() {}\n"
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(root, "pkg"+itoa(d), "sub")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "pkg"+itoa(d), ".gitignore"), []byte("*.tmp\nbuild/\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < files; f++ {
			content := body
			if d == dirs/2 && f == 0 {
				content += "func Needle() {}\n"
			}
			if err := os.WriteFile(filepath.Join(dir, "file"+itoa(f)+".go"), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

func benchRun(b *testing.B, root, tool, args string) {
	b.Helper()
	t := ByName(Builtins())[tool]
	x := Exec{Env: env.NewLocal(root)}
	call := Call{Name: tool, Args: json.RawMessage(args)}
	b.ReportAllocs()
	for b.Loop() {
		if r := t.Execute(context.Background(), call, x); r.IsError {
			b.Fatal(r.Text())
		}
	}
}

// BenchmarkGrepTreeRare greps 1000 files (200 lines each) for a pattern in
// one of them.
func BenchmarkGrepTreeRare(b *testing.B) {
	root := benchTree(b, 50, 20)
	benchRun(b, root, "grep", `{"pattern":"func Needle"}`)
}

// BenchmarkGrepTreeEvery greps the same tree for a line every file has.
func BenchmarkGrepTreeEvery(b *testing.B) {
	root := benchTree(b, 50, 20)
	benchRun(b, root, "grep", `{"pattern":"func Hay","limit":5000}`)
}

// BenchmarkFindTree globs the same 1000-file tree.
func BenchmarkFindTree(b *testing.B) {
	root := benchTree(b, 50, 20)
	benchRun(b, root, "find", `{"pattern":"**/file1*.go"}`)
}

// BenchmarkApplyEditsFuzzy: a fuzzy (smart-quote) match in a 10k-line file.
func BenchmarkApplyEditsFuzzy(b *testing.B) {
	content := numberedLines(10000, "line   ") + "\nsay \u201chello\u201d\n"
	edits := []edit{{OldText: `say "hello"`, NewText: "x"}}
	for b.Loop() {
		if _, err := applyEdits(content, edits, "f"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedact masks a 50 KB tool output with 30 secret env values.
func BenchmarkRedact(b *testing.B) {
	var environ []string
	for i := 0; i < 30; i++ {
		environ = append(environ, "SVC"+itoa(i)+"_TOKEN=value-"+strings.Repeat("x", 10)+itoa(i))
	}
	r := NewRedactor(environ)
	text := strings.Repeat("ordinary output line with value-xxxxxxxxxx7 inside\n", 1000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.Redact(text)
	}
}

// BenchmarkOutputTail streams 10 MB of command output through the tail
// accumulator (temp file included).
func BenchmarkOutputTail(b *testing.B) {
	chunk := []byte(strings.Repeat("output line of some length\n", 1200)) // ~32 KB
	b.SetBytes(int64(len(chunk)) * 320)
	for b.Loop() {
		o := newOutputTail(DefaultMaxLines, DefaultMaxBytes)
		for i := 0; i < 320; i++ {
			o.write(chunk)
		}
		o.snapshot()
		o.close()
		os.Remove(o.path)
	}
}

// BenchmarkRedactJSON is the wire's egress step on a display frame (a few
// streamed ops) and on a 1 MB session/export, with 30 secret env values.
func BenchmarkRedactJSON(b *testing.B) {
	var environ []string
	for i := 0; i < 30; i++ {
		environ = append(environ, "SERVICE_"+itoa(i)+"_API_KEY=secret-value-"+itoa(i)+"-abcdef")
	}
	r := NewRedactor(environ)
	frame := []byte(`{"jsonrpc":"2.0","method":"display/state","params":{"version":42,"ops":[["a",["items",7,"text"],"Here is the change to main.go: the loop now checks ctx.Err() before "],["a",["items",8,"output"],"ok  \tgithub.com/pi-lsp/pi-lsp/rpc\t0.129s\n"],["s",["status"],"streaming"]]}}`)
	var line strings.Builder
	line.WriteString(`{"type":"message","id":"a1b2c3d4","message":{"role":"toolResult","content":[{"type":"text","text":"`)
	for line.Len() < 900 {
		line.WriteString(`func main() { fmt.Println(\"hello\") }\n`)
	}
	line.WriteString(`"}]}}` + "\n")
	export, _ := json.Marshal(map[string]string{"text": strings.Repeat(line.String(), 1<<20/line.Len())})
	for _, bc := range []struct {
		name string
		doc  []byte
	}{{"frame", frame}, {"export-1MB", export}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.doc)))
			for b.Loop() {
				if _, err := r.RedactJSON(bc.doc, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
