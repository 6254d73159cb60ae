package checkpoint

import (
	"bytes"
	"encoding/gob"
	"io/fs"
	"os"
	"sync"
	"time"
)

// racyWindow: a file whose mtime is this close to the moment it was hashed
// may change again within the same timestamp, so its cache entry is not
// trusted (git's "racily clean" entries); the next snapshot hashes it again
// and then trusts it.
const racyWindow = time.Second

// cacheEntry is what the stat cache knows of one file.
type cacheEntry struct {
	Size, Mtime, Ctime int64
	Ino                uint64
	Mode               fs.FileMode
	Hash               string
	Recorded           int64 // when it was hashed (ns)
}

// statCache maps workspace paths to their last hash.
type statCache struct {
	Entries map[string]cacheEntry
	path    string
	mu      sync.Mutex // the walk's goroutines share the cache
	dirty   bool
}

func loadStatCache(path string) *statCache {
	c := &statCache{Entries: map[string]cacheEntry{}, path: path}
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var e map[string]cacheEntry
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&e) == nil && e != nil {
		c.Entries = e // a broken cache is no cache: everything is hashed again
	}
	return c
}

// lookup returns the cached hash of a file whose stat is unchanged.
func (c *statCache) lookup(p string, info fs.FileInfo) (string, bool) {
	c.mu.Lock()
	e, ok := c.Entries[p]
	c.mu.Unlock()
	if !ok {
		return "", false
	}
	ino, ctime := statIDs(info)
	mtime := info.ModTime().UnixNano()
	if e.Size != info.Size() || e.Mtime != mtime || e.Ctime != ctime || e.Ino != ino || e.Mode != fileMode(info) {
		return "", false
	}
	if mtime >= e.Recorded-int64(racyWindow) {
		return "", false
	}
	return e.Hash, true
}

func (c *statCache) put(p string, info fs.FileInfo, hash string, now time.Time) {
	ino, ctime := statIDs(info)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Entries[p] = cacheEntry{Size: info.Size(), Mtime: info.ModTime().UnixNano(), Ctime: ctime, Ino: ino,
		Mode: fileMode(info), Hash: hash, Recorded: now.UnixNano()}
	c.dirty = true
}

// retain drops the entries of paths not seen by the last walk.
func (c *statCache) retain(seen map[string]bool) {
	for p := range c.Entries {
		if !seen[p] {
			delete(c.Entries, p)
			c.dirty = true
		}
	}
}

func (c *statCache) reset() {
	c.Entries = map[string]cacheEntry{}
	c.dirty = true
}

// save writes the cache when it changed.
func (c *statCache) save() error {
	if !c.dirty {
		return nil
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(c.Entries); err != nil {
		return err
	}
	if err := writeAtomic(c.path, b.Bytes()); err != nil {
		return err
	}
	c.dirty = false
	return nil
}

// fileMode is what a checkpoint records of a file's mode: permission bits
// and whether it is a symlink.
func fileMode(info fs.FileInfo) fs.FileMode {
	return info.Mode() & (fs.ModePerm | fs.ModeSymlink)
}
