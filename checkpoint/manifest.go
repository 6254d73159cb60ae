package checkpoint

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// File is one file of a checkpoint.
type File struct {
	Path string      // slash-separated, relative to the workspace root
	Mode fs.FileMode // permission bits, plus fs.ModeSymlink for a link
	Size int64
	Hash string // hex SHA-256 of the bytes (a link's target)
}

// Manifest is a checkpoint: the files of the workspace, sorted by path.
type Manifest struct {
	Files []File
}

const manifestHeader = "pi-lsp checkpoint v1\n"

// encode renders the manifest as text, one file a line:
// "<hash> <mode octal> <size> <quoted path>".
func (m *Manifest) encode() []byte {
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	var b bytes.Buffer
	b.Grow(len(m.Files) * 100)
	b.WriteString(manifestHeader)
	for _, f := range m.Files {
		b.WriteString(f.Hash)
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(uint64(f.Mode), 8))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(f.Size, 10))
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(f.Path))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// manifestID names a manifest's text: its SHA-256, 32 hex digits.
func manifestID(text []byte) string {
	sum := sha256.Sum256(text)
	return hex.EncodeToString(sum[:16])
}

// decodeManifest parses a manifest's text and checks it against its id.
// Every path must be local to the workspace (no "..", not absolute, not in
// .git): a store that says otherwise is corrupt and nothing of it is used.
func decodeManifest(id string, text []byte) (*Manifest, error) {
	if manifestID(text) != id {
		return nil, fmt.Errorf("%w: manifest %s does not match its hash", ErrCorrupt, id)
	}
	if !bytes.HasPrefix(text, []byte(manifestHeader)) {
		return nil, fmt.Errorf("%w: manifest %s: bad header", ErrCorrupt, id)
	}
	m := &Manifest{}
	sc := bufio.NewScanner(bytes.NewReader(text[len(manifestHeader):]))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		f, err := parseLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%w: manifest %s line %d: %w", ErrCorrupt, id, n, err)
		}
		m.Files = append(m.Files, f)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: manifest %s: %w", ErrCorrupt, id, err)
	}
	return m, nil
}

func parseLine(line string) (File, error) {
	parts := strings.SplitN(line, " ", 4)
	if len(parts) != 4 {
		return File{}, fmt.Errorf("want 4 fields")
	}
	if len(parts[0]) != 64 {
		return File{}, fmt.Errorf("bad hash %q", parts[0])
	}
	if _, err := hex.DecodeString(parts[0]); err != nil {
		return File{}, fmt.Errorf("bad hash %q", parts[0])
	}
	mode, err := strconv.ParseUint(parts[1], 8, 32)
	if err != nil {
		return File{}, fmt.Errorf("bad mode: %w", err)
	}
	size, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || size < 0 {
		return File{}, fmt.Errorf("bad size %q", parts[2])
	}
	p, err := strconv.Unquote(parts[3])
	if err != nil {
		return File{}, fmt.Errorf("bad path: %w", err)
	}
	if !LocalPath(p) {
		return File{}, fmt.Errorf("path %q is outside the workspace", p)
	}
	fm := fs.FileMode(mode)
	if fm&^(fs.ModePerm|fs.ModeSymlink) != 0 {
		return File{}, fmt.Errorf("bad mode %o", mode)
	}
	return File{Path: p, Mode: fm, Size: size, Hash: parts[0]}, nil
}

// LocalPath reports whether p (slash-separated) names a file inside the
// workspace that a restore may write: relative, no "..", not in a .git.
func LocalPath(p string) bool {
	if p == "" || !filepath.IsLocal(filepath.FromSlash(p)) {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".git" || part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// index maps a manifest's paths to their files.
func (m *Manifest) index() map[string]File {
	out := make(map[string]File, len(m.Files))
	for _, f := range m.Files {
		out[f.Path] = f
	}
	return out
}
