package checkpoint

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Format 2 stores a manifest as a tree of per-folder objects, as git does:
// a change writes only the objects of the folders it changed and of their
// parents up to the root; an unchanged folder keeps its object and id. The
// root object is the checkpoint (manifests/<id>); the others are in
// trees/<2 hex>/<30 hex>. Each object is text, one entry a line, sorted by
// name:
//
//	pi-lsp checkpoint v2
//	f <hash> <mode octal> <size> <quoted name>
//	d <tree id> <quoted name>
//
// An id is the first 32 hex digits of the SHA-256 of the object's text.
// Format 1 manifests (one flat list, "pi-lsp checkpoint v1") are still read.

const treeHeader = "pi-lsp checkpoint v2\n"

// maxTreeDepth bounds the folders a manifest may nest.
const maxTreeDepth = 256

// treeEntry is one line of a tree object: a file (Tree == "") or a folder.
type treeEntry struct {
	Name string
	Tree string // a folder's tree id
	File File   // a file's (Path is the name only)
}

// encodeTree renders a folder's entries (sorted by name) as a tree object.
func encodeTree(entries []treeEntry) []byte {
	var b bytes.Buffer
	b.Grow(len(treeHeader) + len(entries)*100)
	b.WriteString(treeHeader)
	for _, e := range entries {
		if e.Tree != "" {
			b.WriteString("d ")
			b.WriteString(e.Tree)
		} else {
			b.WriteString("f ")
			b.WriteString(e.File.Hash)
			b.WriteByte(' ')
			b.WriteString(strconv.FormatUint(uint64(e.File.Mode), 8))
			b.WriteByte(' ')
			b.WriteString(strconv.FormatInt(e.File.Size, 10))
		}
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.Name))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// parseTree parses a tree object's text (not checked against an id). Names
// must be single path elements a restore may write, in strictly increasing
// order.
func parseTree(text []byte) ([]treeEntry, error) {
	if !bytes.HasPrefix(text, []byte(treeHeader)) {
		return nil, errors.New("bad header")
	}
	rest := text[len(treeHeader):]
	var out []treeEntry
	for n := 1; len(rest) > 0; n++ {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return nil, fmt.Errorf("line %d: no newline", n)
		}
		e, err := parseTreeLine(string(rest[:i]))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if len(out) > 0 && out[len(out)-1].Name >= e.Name {
			return nil, fmt.Errorf("line %d: %q is out of order", n, e.Name)
		}
		out = append(out, e)
		rest = rest[i+1:]
	}
	return out, nil
}

func parseTreeLine(line string) (treeEntry, error) {
	kind, rest, ok := strings.Cut(line, " ")
	if !ok {
		return treeEntry{}, errors.New("no fields")
	}
	switch kind {
	case "d":
		id, qname, ok := strings.Cut(rest, " ")
		if !ok || !validID(id) {
			return treeEntry{}, fmt.Errorf("bad tree id %q", id)
		}
		name, err := parseName(qname)
		if err != nil {
			return treeEntry{}, err
		}
		return treeEntry{Name: name, Tree: id}, nil
	case "f":
		parts := strings.SplitN(rest, " ", 4)
		if len(parts) != 4 {
			return treeEntry{}, errors.New("want 4 file fields")
		}
		name, err := parseName(parts[3])
		if err != nil {
			return treeEntry{}, err
		}
		// The file line of format 1 with the name as its path.
		f, err := parseLine(strings.Join(parts[:3], " ") + " " + strconv.Quote(name))
		if err != nil {
			return treeEntry{}, err
		}
		f.Path = ""
		return treeEntry{Name: name, File: f}, nil
	}
	return treeEntry{}, fmt.Errorf("bad kind %q", kind)
}

// parseName unquotes a name and checks that it is one path element.
func parseName(q string) (string, error) {
	name, err := strconv.Unquote(q)
	if err != nil {
		return "", fmt.Errorf("bad name: %w", err)
	}
	if strings.ContainsAny(name, "/\\") || !LocalPath(name) {
		return "", fmt.Errorf("name %q is not a file of the workspace", name)
	}
	return name, nil
}

// validID reports whether id looks like an object id (32 lower-case hex).
func validID(id string) bool {
	if len(id) != 32 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

func (s *Store) treePath(id string) string {
	return s.path("trees", id[:2], id[2:])
}

// putTrees stores the tree of files (sorted by path) and returns the
// root's text and id; the root itself is the caller's to write. Folder
// objects already in the store are not written again. written counts the
// bytes written.
func (s *Store) putTrees(files []File) (root []byte, id string, written int64, err error) {
	var b treeBuilder
	b.s = s
	entries, n := b.folder(files, "")
	if b.err != nil {
		return nil, "", b.written, b.err
	}
	if n != len(files) {
		return nil, "", b.written, fmt.Errorf("checkpoint: manifest: %d of %d files placed", n, len(files))
	}
	root = encodeTree(entries)
	return root, manifestID(root), b.written, nil
}

type treeBuilder struct {
	s       *Store
	written int64
	err     error
}

// folder builds the entries of the folder prefix ("" or "a/b/") from files,
// which start with the folder's files (sorted); it returns how many of them
// it consumed.
func (b *treeBuilder) folder(files []File, prefix string) ([]treeEntry, int) {
	var out []treeEntry
	i := 0
	for i < len(files) && b.err == nil {
		p := files[i].Path
		if !strings.HasPrefix(p, prefix) {
			break
		}
		rest := p[len(prefix):]
		name, _, isDir := strings.Cut(rest, "/")
		if !isDir {
			f := files[i]
			f.Path = ""
			out = append(out, treeEntry{Name: name, File: f})
			i++
			continue
		}
		sub, n := b.folder(files[i:], prefix+name+"/")
		i += n
		id := b.put(encodeTree(sub))
		out = append(out, treeEntry{Name: name, Tree: id})
	}
	// Path order is not name order ("a-b" < "a/x" but "a" > "a-b").
	sortEntries(out)
	return out, i
}

func sortEntries(es []treeEntry) {
	slices.SortFunc(es, func(a, b treeEntry) int { return strings.Compare(a.Name, b.Name) })
}

// put stores a folder object unless the store has it.
func (b *treeBuilder) put(text []byte) string {
	id := manifestID(text)
	p := b.s.treePath(id)
	if _, err := os.Stat(p); err == nil {
		return id
	} else if !errors.Is(err, fs.ErrNotExist) {
		b.err = fmt.Errorf("checkpoint: tree: %w", err)
		return id
	}
	if err := os.MkdirAll(b.s.path("trees", id[:2]), 0o700); err != nil {
		b.err = fmt.Errorf("checkpoint: tree: %w", err)
		return id
	}
	if err := writeAtomic(p, text); err != nil {
		b.err = err
		return id
	}
	b.written += int64(len(text))
	return id
}

// readTree appends the files of the tree object id (under prefix) to m,
// noting the ids of the folder objects it read in seen (when not nil).
func (s *Store) readTree(m *Manifest, root, id, prefix string, text []byte, depth int, seen map[string]bool) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("%w: manifest %s: folders nest deeper than %d", ErrCorrupt, root, maxTreeDepth)
	}
	if text == nil {
		var err error
		text, err = os.ReadFile(s.treePath(id))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: manifest %s: folder %q (tree %s) is missing", ErrCorrupt, root, prefix, id)
		}
		if err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		if manifestID(text) != id {
			return fmt.Errorf("%w: manifest %s: tree %s does not match its hash", ErrCorrupt, root, id)
		}
		if seen != nil {
			seen[id] = true
		}
	}
	entries, err := parseTree(text)
	if err != nil {
		return fmt.Errorf("%w: manifest %s: folder %q: %w", ErrCorrupt, root, prefix, err)
	}
	for _, e := range entries {
		if e.Tree != "" {
			if err := s.readTree(m, root, e.Tree, prefix+e.Name+"/", nil, depth+1, seen); err != nil {
				return err
			}
			continue
		}
		f := e.File
		f.Path = prefix + e.Name
		m.Files = append(m.Files, f)
	}
	return nil
}
