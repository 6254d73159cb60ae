package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// outputTail accumulates streamed command output with bounded memory: it
// counts all lines and bytes, keeps a rolling tail for the result, and
// spills everything to a temp file once the output exceeds the limits (so
// the full output stays available at FullOutputPath).
type outputTail struct {
	maxLines, maxBytes int
	rollBytes          int

	tail       []byte // last bytes of output (at most ~2*rollBytes); all of it until the first spill
	tailAtLine bool   // tail starts at a line boundary
	totalBytes int
	totalLines int
	lastLine   int // bytes of the current (last) line

	file    *os.File
	path    string
	fileErr error
}

func newOutputTail(maxLines, maxBytes int) *outputTail {
	return &outputTail{maxLines: maxLines, maxBytes: maxBytes, rollBytes: 2 * maxBytes, tailAtLine: true, totalLines: 1}
}

func (o *outputTail) write(p []byte) {
	o.totalBytes += len(p)
	if n := bytes.Count(p, []byte{'\n'}); n > 0 {
		o.totalLines += n
		o.lastLine = len(p) - bytes.LastIndexByte(p, '\n') - 1
	} else {
		o.lastLine += len(p)
	}
	o.tail = append(o.tail, p...)
	switch {
	case o.file != nil:
		o.spill(p)
	case o.overLimits():
		// Within the limits the tail is never cut (rollBytes > maxBytes),
		// so it holds all the output so far: the file starts with it.
		o.spill(o.tail)
	}
	if len(o.tail) > 2*o.rollBytes {
		cut := len(o.tail) - o.rollBytes
		o.tailAtLine = o.tail[cut-1] == '\n'
		o.tail = append([]byte(nil), o.tail[cut:]...)
	}
}

func (o *outputTail) overLimits() bool {
	return o.totalBytes > o.maxBytes || o.lines() > o.maxLines
}

// lines counts output lines; a final newline does not start another one
// (pi counts it, which truncates `seq 1 2000` by one line).
func (o *outputTail) lines() int {
	if o.totalBytes > 0 && o.lastLine == 0 {
		return o.totalLines - 1
	}
	return o.totalLines
}

// spill writes p to the temp file, creating it first. Failure to create it
// is remembered, never fatal.
func (o *outputTail) spill(p []byte) {
	if o.fileErr != nil {
		return
	}
	if o.file == nil {
		dir := SpillDir()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			o.fileErr = err
			return
		}
		f, err := os.CreateTemp(dir, "pi-bash-*.log")
		if err != nil {
			o.fileErr = err
			return
		}
		o.file, o.path = f, f.Name()
	}
	if _, err := o.file.Write(p); err != nil {
		o.fileErr = err
	}
}

// close flushes and closes the temp file, if any.
func (o *outputTail) close() {
	if o.file != nil {
		o.file.Close()
	}
}

// snapshot returns the tail-truncated text and its truncation info.
func (o *outputTail) snapshot() (string, Truncation) {
	t := o.tail
	if !o.tailAtLine {
		if i := bytes.IndexByte(t, '\n'); i >= 0 {
			t = t[i+1:]
		}
	}
	// The rolling window may start inside a rune.
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	text := strings.ToValidUTF8(string(t), "\uFFFD")
	if !o.overLimits() {
		// Everything fits (the tail is then the whole output).
		n := o.lines()
		return text, Truncation{TotalLines: n, TotalBytes: o.totalBytes, OutputLines: n, OutputBytes: len(text),
			MaxLines: o.maxLines, MaxBytes: o.maxBytes}
	}
	out, tr := truncateTail(strings.TrimSuffix(text, "\n"), o.maxLines, o.maxBytes)
	if !tr.Truncated || tr.TruncatedBy == "" {
		// The kept tail fits, but the whole output did not.
		tr.TruncatedBy = "lines"
		if o.totalBytes > o.maxBytes {
			tr.TruncatedBy = "bytes"
		}
	}
	tr.Truncated = true
	tr.TotalLines, tr.TotalBytes = o.lines(), o.totalBytes
	return out, tr
}

// OutputCapture collects a command's streamed output as the bash tool does:
// the result keeps the last DefaultMaxLines lines or DefaultMaxBytes bytes,
// and output beyond that is saved whole to a temp file. It is for commands
// the user runs outside the tools (agent/bash); not safe for concurrent use.
type OutputCapture struct{ t *outputTail }

// NewOutputCapture returns an empty capture.
func NewOutputCapture() *OutputCapture {
	return &OutputCapture{t: newOutputTail(DefaultMaxLines, DefaultMaxBytes)}
}

// Write takes the next chunk of output.
func (c *OutputCapture) Write(p []byte) { c.t.write(p) }

// Finish closes the temp file and returns the kept text, whether output was
// cut, and the path of the whole output ("" when it fit or could not be
// saved).
func (c *OutputCapture) Finish() (text string, truncated bool, fullOutputPath string) {
	c.t.close()
	text, tr := c.t.snapshot()
	return text, tr.Truncated, c.t.path
}

// SpillDir is the directory bash spill files (pi-bash-*.log) are written
// to: a per-user directory under the system temp directory.
func SpillDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("pi-lsp-%d", os.Getuid()))
}

// CleanSpills removes bash spill files (pi-bash-*.log) older than maxAge
// from SpillDir and, for files left by earlier versions, from the system
// temp directory. It returns how many it removed.
func CleanSpills(maxAge time.Duration) int {
	n := 0
	cutoff := time.Now().Add(-maxAge)
	for _, dir := range []string{SpillDir(), os.TempDir()} {
		matches, _ := filepath.Glob(filepath.Join(dir, "pi-bash-*.log"))
		for _, m := range matches {
			if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(cutoff) && os.Remove(m) == nil {
				n++
			}
		}
	}
	return n
}

// SpillPath returns the spill file a tool result's details name
// (fullOutputPath) when it is one of ours, else "".
func SpillPath(details []byte) string {
	if len(details) == 0 || !bytes.Contains(details, []byte("fullOutputPath")) {
		return ""
	}
	var d struct {
		FullOutputPath string `json:"fullOutputPath"`
	}
	if json.Unmarshal(details, &d) != nil || filepath.Dir(d.FullOutputPath) != SpillDir() {
		return ""
	}
	return d.FullOutputPath
}
