// Package langservertest is a scripted language server for tests: it
// speaks LSP on a stream and publishes a diagnostic for every line that
// says so (`ERR: text`, `WARN: text`), finds `func name` declarations for
// definition, and can misbehave on purpose (crash, hang, garbage).
package langservertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// Modes of the fake (FAKELSP_MODE).
const (
	ModeNormal  = ""
	ModeCrash   = "crash"   // exits with status 3 at the first didOpen
	ModeHang    = "hang"    // never answers initialize
	ModeGarbage = "garbage" // writes bytes that are not LSP at the first didOpen
	ModeSilent  = "silent"  // never publishes diagnostics
)

type pos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type rng struct {
	Start pos `json:"start"`
	End   pos `json:"end"`
}

type diag struct {
	Range    rng    `json:"range"`
	Severity int    `json:"severity"`
	Source   string `json:"source"`
	Message  string `json:"message"`
}

type rwc struct {
	io.Reader
	io.Writer
}

func (rwc) Close() error { return nil }

// Serve runs the fake on r and w until exit or the end of r.
func Serve(r io.Reader, w io.Writer, mode string) error {
	var mu sync.Mutex
	docs := map[string]string{}
	var root string
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc{r, w}))
	publish := func(u, text string) {
		if mode == ModeSilent {
			return
		}
		ds := []diag{}
		for i, line := range strings.Split(text, "\n") {
			for _, k := range []struct {
				tag string
				sev int
			}{{"ERR:", 1}, {"WARN:", 2}} {
				if c := strings.Index(line, k.tag); c >= 0 {
					msg := strings.TrimSpace(line[c+len(k.tag):])
					ds = append(ds, diag{Range: rng{pos{i, c}, pos{i, len(line)}}, Severity: k.sev, Source: "fake", Message: msg})
				}
			}
		}
		_ = conn.Notify(context.Background(), "textDocument/publishDiagnostics", map[string]any{"uri": u, "diagnostics": ds})
	}
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var p struct {
			RootURI      string `json:"rootUri"`
			TextDocument struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Text string `json:"text"`
			} `json:"contentChanges"`
			Position pos `json:"position"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		switch req.Method() {
		case "initialize":
			if mode == ModeHang {
				select {}
			}
			root = uri.URI(p.RootURI).Filename()
			return map[string]any{"capabilities": map[string]any{"textDocumentSync": 1, "definitionProvider": true, "hoverProvider": true}}, nil
		case "textDocument/didOpen", "textDocument/didChange":
			switch mode {
			case ModeCrash:
				os.Exit(3)
			case ModeGarbage:
				_, _ = io.WriteString(w, "Content-Length: 5\r\n\r\n}}}}}")
				return nil, nil
			}
			text := p.TextDocument.Text
			if len(p.ContentChanges) > 0 {
				text = p.ContentChanges[len(p.ContentChanges)-1].Text
			}
			mu.Lock()
			docs[p.TextDocument.URI] = text
			mu.Unlock()
			go func() {
				time.Sleep(20 * time.Millisecond)
				publish(p.TextDocument.URI, text)
			}()
			return nil, nil
		case "textDocument/definition":
			mu.Lock()
			text := docs[p.TextDocument.URI]
			mu.Unlock()
			word := wordAt(text, p.Position)
			if word == "" {
				return nil, nil
			}
			return findFunc(root, word), nil
		case "textDocument/hover":
			mu.Lock()
			text := docs[p.TextDocument.URI]
			mu.Unlock()
			return map[string]any{"contents": map[string]any{"kind": "markdown", "value": "hover: " + wordAt(text, p.Position)}}, nil
		case "shutdown":
			return nil, nil
		case "exit":
			os.Exit(0)
		}
		if req.IsCall() {
			return nil, jsonrpc2.ErrMethodNotFound
		}
		return nil, nil
	})
	<-conn.Done()
	return conn.Err()
}

func wordAt(text string, p pos) string {
	lines := strings.Split(text, "\n")
	if p.Line >= len(lines) {
		return ""
	}
	l := lines[p.Line]
	isW := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	s, e := p.Character, p.Character
	for s > 0 && s <= len(l) && isW(l[s-1]) {
		s--
	}
	for e < len(l) && isW(l[e]) {
		e++
	}
	if s >= e {
		return ""
	}
	return l[s:e]
}

// findFunc finds `func word` in the files under root.
func findFunc(root, word string) []map[string]any {
	re := regexp.MustCompile(`func ` + regexp.QuoteMeta(word) + `\b`)
	var out []map[string]any
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for i, line := range strings.Split(string(data), "\n") {
			if loc := re.FindStringIndex(line); loc != nil {
				c := loc[0] + len("func ")
				out = append(out, map[string]any{"uri": string(uri.File(p)), "range": rng{pos{i, c}, pos{i, c + len(word)}}})
			}
		}
		return nil
	})
	return out
}

// Main is the fake's main: LSP on stdin and stdout, mode from FAKELSP_MODE.
func Main() {
	if err := Serve(os.Stdin, os.Stdout, os.Getenv("FAKELSP_MODE")); err != nil {
		fmt.Fprintln(os.Stderr, "fakelsp:", err)
		os.Exit(1)
	}
}
