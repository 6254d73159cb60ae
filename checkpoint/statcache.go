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
	mu      sync.RWMutex // the walk's goroutines share the cache
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

// fileStat is what the walk's lstat gives of a file.
type fileStat struct {
	mode               fs.FileMode // permission and type bits
	size, mtime, ctime int64       // mtime and ctime in ns
	ino                uint64
}

// recorded is the mode a checkpoint records: permission bits and whether
// it is a symlink.
func (st fileStat) recorded() fs.FileMode { return st.mode & (fs.ModePerm | fs.ModeSymlink) }

// lookup returns the cached hash of a file whose stat is unchanged.
func (c *statCache) lookup(p string, st fileStat) (string, bool) {
	c.mu.RLock()
	e, ok := c.Entries[p]
	c.mu.RUnlock()
	if !ok {
		return "", false
	}
	if e.Size != st.size || e.Mtime != st.mtime || e.Ctime != st.ctime || e.Ino != st.ino || e.Mode != st.recorded() {
		return "", false
	}
	if st.mtime >= e.Recorded-int64(racyWindow) {
		return "", false
	}
	return e.Hash, true
}

func (c *statCache) put(p string, st fileStat, hash string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Entries[p] = cacheEntry{Size: st.size, Mtime: st.mtime, Ctime: st.ctime, Ino: st.ino,
		Mode: st.recorded(), Hash: hash, Recorded: now.UnixNano()}
	c.dirty = true
}

// retain drops the entries of paths that are not in files (the last
// walk's manifest, every path of which has an entry).
func (c *statCache) retain(files []File) {
	if len(c.Entries) == len(files) {
		return // every entry is one of files
	}
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.Path] = true
	}
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

// save writes the cache when it changed; it returns the bytes written.
func (c *statCache) save() (int64, error) {
	if !c.dirty {
		return 0, nil
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(c.Entries); err != nil {
		return 0, err
	}
	if err := writeAtomic(c.path, b.Bytes()); err != nil {
		return 0, err
	}
	c.dirty = false
	return int64(b.Len()), nil
}
