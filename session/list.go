package session

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// Info describes a session file for a session list.
type Info struct {
	ID           string `json:"id"`
	Path         string `json:"path"`
	Cwd          string `json:"cwd"`
	Name         string `json:"name,omitempty"`
	FirstMessage string `json:"firstMessage"`
	// LastMessage is the text of the last user message in the file (any
	// branch); "" when it is the first.
	LastMessage   string    `json:"lastMessage,omitempty"`
	ParentSession string    `json:"parentSession,omitempty"`
	Created       time.Time `json:"created"`
	Modified      time.Time `json:"modified"`
	EntryCount    int       `json:"entryCount"`

	// activity is the latest user or assistant message time seen so far.
	activity time.Time
	// lastUser is the last user message line after the first, decoded once
	// the file is read.
	lastUser []byte
}

// List returns the sessions of cwd under root, newest first. It reads each
// file once without decoding its messages: the header, the first user
// message, session_info lines (found by their "type" prefix, which is
// where pi and pi-lsp write it) and a count of entry lines. Modified follows
// pi 0.73.1: the latest time among its user and assistant messages (the
// message's own timestamp, else its entry's), else the header's timestamp,
// else the file's modification time; sessions are ordered by it, as pi
// orders them. Files that are
// not sessions are skipped; hidden sessions (the "subagents" subdirectory)
// are not listed.
func List(ctx context.Context, root, cwd string) ([]Info, error) {
	files, err := sessionFiles(DirFor(root, cwd))
	if err != nil {
		return nil, err
	}
	return infos(ctx, files)
}

// ListAll returns the sessions of every cwd under root, newest first.
func ListAll(ctx context.Context, root string) ([]Info, error) {
	return listAll(ctx, root, false)
}

// listAll lists the sessions of every cwd under root, and with subagents
// also the subagents' sessions beside them.
func listAll(ctx context.Context, root string, subagents bool) ([]Info, error) {
	dirs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: list %s: %w", root, err)
	}
	var files []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dirs := []string{filepath.Join(root, d.Name())}
		if subagents {
			dirs = append(dirs, filepath.Join(root, d.Name(), SubagentDir))
		}
		for _, p := range dirs {
			f, err := sessionFiles(p)
			if err != nil {
				return nil, err
			}
			files = append(files, f...)
		}
	}
	return infos(ctx, files)
}

// sessionFiles lists the *.jsonl regular files directly in dir.
func sessionFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: list %s: %w", dir, err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// infos reads the files in parallel and sorts them newest first.
func infos(ctx context.Context, files []string) ([]Info, error) {
	out := make([]*Info, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(files), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = readInfo(files[i])
			}
		}()
	}
	var err error
feed:
	for i := range files {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	list := make([]Info, 0, len(files))
	for _, in := range out {
		if in != nil {
			list = append(list, *in)
		}
	}
	sort.SliceStable(list, func(a, b int) bool { return list[a].Modified.After(list[b].Modified) })
	return list, nil
}

var (
	typeSessionInfo = []byte(`"type":"session_info"`)
	typeMessage     = []byte(`"type":"message"`)
	typeHeader      = []byte(`"type":"session"`)
)

// readInfo reads one file's Info, or nil if it is not a session.
func readInfo(path string) *Info {
	info, _ := readInfoScanned(path)
	return info
}

// readInfoScanned is readInfo, also returning how many bytes of the file
// it read. A large file whose sidecar still describes it is read only as
// far as its header line and from where the sidecar ends: the summary of
// the rest is in the sidecar (list_sidecar.go).
func readInfoScanned(path string) (*Info, int64) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0
	}
	info := &Info{Path: path, Modified: st.ModTime()}
	r := bufio.NewReaderSize(f, 64<<10)
	var long []byte
	var scanned int64
	header := true
	for {
		chunk, err := r.ReadSlice('\n')
		scanned += int64(len(chunk))
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if len(long) > 0 {
			long = append(long, chunk...)
			line = long
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			if header {
				h, ok := decodeHeader(line)
				if !ok {
					return nil, scanned
				}
				header = false
				info.ID, info.Cwd, info.ParentSession = h.ID, h.Cwd, h.ParentSession
				if t, err := time.Parse(time.RFC3339Nano, h.Timestamp); err == nil {
					info.Created, info.Modified = t, t
				} else {
					info.Created = st.ModTime()
				}
				if ls, covered, ok := listFromSidecar(path, f, st); ok && covered >= scanned && err == nil {
					ls.apply(info)
					if _, serr := f.Seek(covered, io.SeekStart); serr != nil {
						return nil, scanned
					}
					r.Reset(f)
					long = long[:0]
					continue
				}
			} else {
				info.addLine(line)
			}
		}
		long = long[:0]
		if err == io.EOF || (err != nil && err != bufio.ErrBufferFull) {
			break
		}
	}
	if header {
		return nil, scanned
	}
	if !info.activity.IsZero() {
		info.Modified = info.activity
	}
	if info.lastUser != nil {
		if e, err := decodeEntry(info.lastUser); err == nil && e.Message != nil {
			info.LastMessage = blocksText(e.Message.Content)
		}
		info.lastUser = nil
	}
	return info, scanned
}

// quotedUser is the role value of a user message line.
var quotedUser = []byte(`"user"`)

// addLine accounts for one entry line of a listed file.
func (info *Info) addLine(line []byte) {
	prefix := line[:min(len(line), 48)]
	if bytes.Contains(prefix, typeHeader) && !bytes.Contains(prefix, typeSessionInfo) {
		return // a repeated header
	}
	info.EntryCount++
	switch {
	case bytes.Contains(prefix, typeSessionInfo):
		if e, err := decodeEntry(line); err == nil && e.Type == TypeSessionInfo {
			info.Name = strings.TrimSpace(e.Name)
		}
	case bytes.Contains(prefix, typeMessage):
		if t, ok := activityTime(line); ok && t.After(info.activity) {
			info.activity = t
		}
		if !bytes.Contains(line[:min(len(line), 512)], quotedUser) {
			return // cheap: a user line names its role near its start
		}
		if li, err := scanLine(line); err != nil || li.role != "user" {
			return
		}
		if info.FirstMessage != "" {
			// The line buffer is reused: keep a copy of the latest.
			info.lastUser = append(info.lastUser[:0], line...)
			return
		}
		if e, err := decodeEntry(line); err == nil && e.Message != nil {
			info.FirstMessage = blocksText(e.Message.Content)
		}
	}
}
