package checkpoint

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
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

// statCache maps workspace paths to their last hash. On disk it is a base
// (statcache: the whole map, gob) and a log of the changes since
// (statcache.log: records of the entries put or dropped), so that a turn
// that changed a few files appends a few entries instead of rewriting the
// whole cache; the base is rewritten when the log grows past half its size.
// Any entry, however old, is only used when the file's stat is the one it
// records, so a lost or torn log record costs a rehash, never a wrong hash.
type statCache struct {
	Entries map[string]cacheEntry
	path    string
	mu      sync.RWMutex // the walk's goroutines share the cache
	// changed are the entries put (or dropped: nil) since the last save;
	// full says the base must be rewritten (a reset, no base yet).
	changed  map[string]*cacheEntry
	full     bool
	baseSize int64
	logSize  int64
}

func loadStatCache(path string) *statCache {
	c := &statCache{Entries: map[string]cacheEntry{}, path: path, changed: map[string]*cacheEntry{}}
	data, err := os.ReadFile(path)
	if err != nil {
		c.full = true
		return c
	}
	c.baseSize = int64(len(data))
	var e map[string]cacheEntry
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&e) != nil || e == nil {
		c.full = true // a broken cache is no cache: everything is hashed again
		return c
	}
	c.Entries = e
	log, err := os.ReadFile(path + ".log")
	if err != nil {
		return c
	}
	c.logSize = int64(len(log))
	for len(log) >= 4 {
		n := int(binary.BigEndian.Uint32(log))
		if n > len(log)-4 {
			break // torn by a crash: what follows is lost, those files are rehashed
		}
		var rec logRecord
		if gob.NewDecoder(bytes.NewReader(log[4:4+n])).Decode(&rec) != nil {
			break
		}
		for _, p := range rec.Drop {
			delete(c.Entries, p)
		}
		maps.Copy(c.Entries, rec.Put)
		log = log[4+n:]
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
	e := cacheEntry{Size: st.size, Mtime: st.mtime, Ctime: st.ctime, Ino: st.ino,
		Mode: st.recorded(), Hash: hash, Recorded: now.UnixNano()}
	c.Entries[p] = e
	c.changed[p] = &e
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
			c.changed[p] = nil
		}
	}
}

func (c *statCache) reset() {
	c.Entries = map[string]cacheEntry{}
	c.full = true
}

// logRecord is one save's changes in statcache.log.
type logRecord struct {
	Put  map[string]cacheEntry
	Drop []string
}

// save writes what changed since the last save: a log record, or the whole
// base when the log would grow past half of it. It returns the bytes
// written.
func (c *statCache) save() (int64, error) {
	if !c.full && len(c.changed) == 0 {
		return 0, nil
	}
	var b bytes.Buffer
	if !c.full {
		b.Write([]byte{0, 0, 0, 0})
		rec := logRecord{Put: map[string]cacheEntry{}}
		for p, e := range c.changed {
			if e == nil {
				rec.Drop = append(rec.Drop, p)
			} else {
				rec.Put[p] = *e
			}
		}
		if err := gob.NewEncoder(&b).Encode(rec); err != nil {
			return 0, err
		}
		binary.BigEndian.PutUint32(b.Bytes(), uint32(b.Len()-4))
		if c.logSize+int64(b.Len()) <= c.baseSize/2 {
			if err := appendFile(c.path+".log", b.Bytes()); err != nil {
				return 0, err
			}
			c.logSize += int64(b.Len())
			clear(c.changed)
			return int64(b.Len()), nil
		}
		b.Reset()
	}
	// The log goes first: a log left over a new base could name blobs a
	// prune removed (reset).
	if err := os.Remove(c.path + ".log"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	c.logSize = 0
	if err := gob.NewEncoder(&b).Encode(c.Entries); err != nil {
		return 0, err
	}
	if err := writeAtomic(c.path, b.Bytes()); err != nil {
		return 0, err
	}
	c.baseSize = int64(b.Len())
	c.full = false
	clear(c.changed)
	return int64(b.Len()), nil
}

// appendFile appends data to the file p (0600), creating it.
func appendFile(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("checkpoint: append %s: %w", filepath.Base(p), werr)
	}
	return nil
}
