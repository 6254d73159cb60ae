package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// benchWorkspace makes n files of about 1.5 KB in nested folders, with a
// .gitignore and an ignored build folder, aged past the racy window.
func benchWorkspace(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	write(b, root, ".gitignore", "build/\n*.o\n", 0o644)
	for i := range n {
		rel := fmt.Sprintf("pkg%02d/sub%02d/file%05d.go", i%50, (i/50)%20, i)
		body := fmt.Sprintf("package p%d\n\n// file %d\n", i%50, i)
		for len(body) < 1500 {
			body += "func f() int { return 42 } // padding padding padding\n"
		}
		write(b, root, rel, body, 0o644)
	}
	for i := range 200 {
		write(b, root, fmt.Sprintf("build/obj%03d.o", i), "object", 0o644)
	}
	old := time.Now().Add(-time.Hour)
	_ = filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	return root
}

// BenchmarkCheckpoint measures, on a 20,000-file workspace: the first
// checkpoint (every file hashed and stored), and the checkpoint a turn
// adds when nothing changed (stat only: hashes/op must be 0), against
// checkpoints disabled (nothing to do). disk-bytes is the store's size
// after the first checkpoint.
func BenchmarkCheckpoint(b *testing.B) {
	b.Setenv("HOME", b.TempDir())
	root := benchWorkspace(b, 20000)
	ctx := context.Background()
	storeRoot := b.TempDir()
	var s *Store
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			_ = os.RemoveAll(storeRoot)
			var err error
			if s, err = Open(storeRoot, root, Options{}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			snap, err := s.Snapshot(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if snap.Files != 20001 {
				b.Fatalf("files = %d", snap.Files)
			}
		}
		disk, err := s.DiskUsage()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(disk), "disk-bytes")
	})
	b.Run("unchanged", func(b *testing.B) {
		if s == nil { // run alone (-bench .../unchanged)
			var err error
			if s, err = Open(storeRoot, root, Options{}); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Snapshot(ctx); err != nil {
				b.Fatal(err)
			}
		}
		before := s.Hashes()
		cpu := cpuTime()
		n := 0
		for b.Loop() {
			if _, err := s.Snapshot(ctx); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(n)/1e6, "cpu-ms/op")
		b.ReportMetric(float64(s.Hashes()-before)/float64(n), "hashes/op")
	})
	b.Run("one-change", func(b *testing.B) {
		// A turn that changed one file: its blob, the folder objects of its
		// folder and parents, the root and the stat cache are written.
		if s == nil {
			var err error
			if s, err = Open(storeRoot, root, Options{}); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Snapshot(ctx); err != nil {
				b.Fatal(err)
			}
		}
		before, written := s.Hashes(), s.Written()
		cpu := cpuTime()
		n := 0
		p := filepath.Join(root, "pkg07", "sub01", "file01057.go")
		for b.Loop() {
			n++
			if err := os.WriteFile(p, []byte(fmt.Sprintf("package p7\n// turn %d\n", n)), 0o644); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Snapshot(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(n)/1e6, "cpu-ms/op")
		b.ReportMetric(float64(s.Hashes()-before)/float64(n), "hashes/op")
		b.ReportMetric(float64(s.Written()-written)/float64(n), "written-bytes/op")
	})
	b.Run("stat-floor", func(b *testing.B) {
		// The floor under "unchanged": a bare walk that lstats every file
		// (what any change detection without a file watcher must do).
		cpu := cpuTime()
		n := 0
		for b.Loop() {
			n++
			files := 0
			_ = filepath.WalkDir(root, func(_ string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if _, err := d.Info(); err == nil {
						files++
					}
				}
				return nil
			})
			if files < 20000 {
				b.Fatalf("walked %d files", files)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(n)/1e6, "cpu-ms/op")
	})
	b.Run("disabled", func(b *testing.B) {
		// checkpoints.enabled false: the harness takes no snapshot at all.
		for b.Loop() {
		}
	})
}

// cpuTime is the CPU time (user + system, ns) the process has used: a
// figure the machine's load inflates far less than the wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
