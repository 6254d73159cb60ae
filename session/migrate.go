package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Migration of v1 and v2 files, following pi's migrateSessionEntries:
//   - v1 -> v2: every entry gets an id and is parented on the entry before
//     it; a compaction's firstKeptEntryIndex (an index into the file's
//     parsed lines, header = 0) becomes firstKeptEntryId.
//   - v2 -> v3: the message role "hookMessage" is renamed "custom".
//
// Reading migrates in memory (the index synthesises ids, and migrateLine
// fixes each line as it is decoded or copied). Opening a v1/v2 file for
// writing rewrites it as v3 first, as pi does, because appended entries must
// point at ids that exist in the file.

// migrateLine returns the raw line of record i as a v3 entry.
func (s *Session) migrateLine(i int32, line []byte) ([]byte, error) {
	if s.fileVersion >= CurrentVersion {
		return line, nil
	}
	x := &s.idx
	r := &x.recs[i]
	var err error
	if x.linear {
		if line, err = setMember(line, "id", quote(x.id(i))); err != nil {
			return nil, err
		}
		parent := []byte("null")
		if r.parent != none {
			parent = quote(x.id(r.parent))
		}
		if line, err = setMember(line, "parentId", parent); err != nil {
			return nil, err
		}
		if r.kind == kCompaction {
			if v, ok := getMember(line, "firstKeptEntryIndex"); ok {
				var k float64
				if json.Unmarshal(v, &k) == nil && k >= 1 && int(k)-1 < len(x.recs) && k == float64(int(k)) {
					if line, err = setMember(line, "firstKeptEntryId", quote(x.id(int32(k)-1))); err != nil {
						return nil, err
					}
				}
				if line, err = deleteMember(line, "firstKeptEntryIndex"); err != nil {
					return nil, err
				}
			}
		}
	}
	if r.kind == kMessage && r.role == roleOf("custom") {
		if m, ok := getMember(line, "message"); ok {
			if role, ok := getMember(m, "role"); ok && rawString(role) == "hookMessage" {
				m2, err := setMember(m, "role", quote("custom"))
				if err != nil {
					return nil, err
				}
				if line, err = setMember(line, "message", m2); err != nil {
					return nil, err
				}
			}
		}
	}
	return line, nil
}

// rewriteMigrated writes the whole file again as v3 (temp file + rename),
// every good entry in order. The original file is kept beside it as
// "<file>.v<N>.bak" (a hard link), so even corrupt lines are not lost.
func (s *Session) rewriteMigrated() error {
	dir := filepath.Dir(s.path)
	tmp, err := os.CreateTemp(dir, ".migrate-*.jsonl")
	if err != nil {
		return fmt.Errorf("session: migrate %s: %w", s.path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("session: migrate %s: %w", s.path, err)
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	h := s.header
	h.Version = CurrentVersion
	hb, _ := json.Marshal(h) // a Header always encodes
	w.Write(append(hb, '\n'))
	for i := range s.idx.recs {
		line, err := s.readLine(int32(i))
		if err == nil {
			line, err = s.migrateLine(int32(i), line)
		}
		if err != nil {
			tmp.Close()
			return fmt.Errorf("session: migrate %s: %w", s.path, err)
		}
		w.Write(line)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("session: migrate %s: %w", s.path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("session: migrate %s: %w", s.path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("session: migrate %s: %w", s.path, err)
	}
	if err := os.Link(s.path, backupName(s.path, s.fileVersion)); err != nil {
		return fmt.Errorf("session: migrate %s: keep the original: %w", s.path, err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("session: migrate %s: %w", s.path, err)
	}
	return syncDir(dir)
}

// backupName returns a name for the pre-migration copy that does not exist yet.
func backupName(path string, version int) string {
	name := fmt.Sprintf("%s.v%d.bak", path, version)
	for n := 2; ; n++ {
		if _, err := os.Lstat(name); os.IsNotExist(err) {
			return name
		}
		name = fmt.Sprintf("%s.v%d.%d.bak", path, version, n)
	}
}
