package session

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/internal/sessiongen"
	"github.com/pi-lsp/pi-lsp/llm"
)

// equivLines gathers the lines the scanner must read exactly as the
// reference scanner (scan_ref_test.go) did: the pi-written and legacy
// sessions in testdata, generated sessions with compactions, branches and
// short turns, and damaged variants of them: every truncation of a sample
// (torn writes), lines glued together, escaped keys, duplicated keys and
// odd usage values.
func equivLines(t *testing.T) [][]byte {
	t.Helper()
	var lines [][]byte
	add := func(data []byte) {
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) > 0 {
				lines = append(lines, l)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "sessions", "*.jsonl"))
	legacy, _ := filepath.Glob(filepath.Join("..", "testdata", "sessions", "legacy", "*.jsonl"))
	files = append(files, legacy...)
	if len(files) < 4 {
		t.Fatalf("expected the pi-written and legacy sessions in testdata/sessions, found %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(b)
	}
	for _, o := range []sessiongen.Options{
		{Bytes: 900_000, Seed: 3, CompactEvery: 60_000, BranchEvery: 3},
		{Bytes: 300_000, Seed: 4, ShortTurns: true},
	} {
		var buf bytes.Buffer
		if _, err := sessiongen.Write(&buf, o); err != nil {
			t.Fatal(err)
		}
		add(buf.Bytes())
	}
	whole := len(lines)
	for k := 0; k < whole; k += 7 {
		l := lines[k]
		for n := 0; n < len(l); n += 1 + n/40 {
			lines = append(lines, l[:n])
		}
		if k+1 < whole {
			lines = append(lines, append(append([]byte(nil), l[:len(l)/2]...), lines[k+1]...))
			lines = append(lines, append(append([]byte(nil), l...), lines[k+1]...))
		}
		for _, r := range [][2]string{
			{`"type"`, `"\u0074ype"`}, {`"id"`, `"\u0069d"`}, {`"role"`, `"r\u006fle"`},
			{`"usage":{`, `"usage":{"input":"7","output":-3,"cacheRead":1e3,"cacheWrite":99999999999,"totalTokens":2.5,`},
			{`"cost":{`, `"cost":{"input":-1,"output":"x","total":1e400,`},
			{`"content":[`, `"content":[{"type":"t\u0065xt","text":"a"},{"type":"toolCall","id":"c"},`},
			{`"parentId":`, `"parentId":"dup","parentId":`},
			{`"message":{`, `"message":{"role":"user","usage":{"input":5},"stopReason":"aborted",`},
			{`}`, `,}`}, {`"`, `'`}, {`:`, ` : `},
		} {
			if m := bytes.Replace(l, []byte(r[0]), []byte(r[1]), 1); !bytes.Equal(m, l) {
				lines = append(lines, m)
			}
		}
	}
	return lines
}

// sameScan fails unless scanLine and the reference agree on line.
func sameScan(t *testing.T, line []byte) {
	t.Helper()
	got, gerr := scanLine(line)
	want, werr := refScanLine(line)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("errors differ: %v vs reference %v\n%q", gerr, werr, line)
	}
	if gerr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fields differ:\n got %+v\nwant %+v\n%q", got, want, line)
	}
	var gc, wc llm.Cost
	gu, wu := parseUsage(got.usage, got.stopReason, &gc), refParseUsage(want.usage, want.stopReason, &wc)
	if gu != wu || gc != wc {
		t.Fatalf("usage differs: %+v %+v vs reference %+v %+v\n%q", gu, gc, wu, wc, got.usage)
	}
}

// TestScanLineMatchesTheReference: the faster line scanner gives every
// field, usage and cost the reference scanner gives, and rejects the same
// lines, on real, generated and damaged sessions.
func TestScanLineMatchesTheReference(t *testing.T) {
	lines := equivLines(t)
	accepted, rejected := 0, 0
	for _, l := range lines {
		sameScan(t, l)
		if _, err := scanLine(l); err == nil {
			accepted++
		} else {
			rejected++
		}
	}
	if accepted < 1000 || rejected < 1000 {
		t.Fatalf("too few cases: %d accepted, %d rejected", accepted, rejected)
	}
	t.Logf("%d lines: %d accepted, %d rejected", len(lines), accepted, rejected)
}

// FuzzScanLineMatchesTheReference: on any input the faster scanner and
// the reference agree (FuzzScanLine checks both against encoding/json).
func FuzzScanLineMatchesTheReference(f *testing.F) {
	for _, s := range []string{
		testHeader,
		msgLine("aa000001", "", "user", "hi \"quoted\" \\ back\\slash"),
		`{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"toolCall"}],"usage":{"input":12,"output":1.5,"cost":{"total":0.25}},"stopReason":"aborted"}}`,
		`{"type":"message","id":"a","message":{"role":"user","usage":{"input":"7","inp\u0075t":3,"cost":{"total":-1}},"timestamp":17e11},"timestamp":"2025-01-01T00:00:00Z"}`,
		`{"\u0074ype":"custom_message","display":true,"customType":"c\u0041","summary":"s"}`,
		`{"type":"message","message":{"content":"x","role":"toolResult"},"id":"q"}`,
		`{"a":"\\"}`, `{"a":"\\\"}`, `{"a":[1,2}`, `{"type":"x"}{"type":"y"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if strings.Count(string(line), "\n") > 0 {
			return
		}
		sameScan(t, line)
	})
}
