package session

import (
	"context"
	"os"
	"runtime"
	"testing"
)

// benchBigFile is the session the index benchmarks open: $PI_LSP_BENCH_SESSION
// (the 133 MB chain scripts/bench-session.sh makes, docs/benchmarks.md), or
// a generated 32 MB one.
func benchBigFile(b *testing.B) string {
	if p := os.Getenv("PI_LSP_BENCH_SESSION"); p != "" {
		return p
	}
	return benchFile(b, 32, 800_000)
}

// openBench opens path read-only, the full scan sequential or not, and
// reports the live heap with the session open (after a collection) as
// heap-MB: the index's own memory, independent of the machine's load.
func openBench(b *testing.B, path string, sequential bool, heap *uint64) {
	s := &Session{path: path, readOnly: true, sequential: sequential, parallel: !sequential}
	if err := s.openAndLoad(context.Background()); err != nil {
		b.Fatal(err)
	}
	if heap != nil {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		*heap = ms.HeapAlloc
	}
	s.Close()
}

// BenchmarkIndexScan is the first open's full scan (no sidecar), with the
// parallel scan (parallelMin as it is) and with it turned off.
func BenchmarkIndexScan(b *testing.B) {
	path := benchBigFile(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		sequential bool
	}{{"parallel", false}, {"sequential", true}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			var heap uint64
			for b.Loop() {
				b.StopTimer()
				os.Remove(sidecarPath(path))
				b.StartTimer()
				openBench(b, path, c.sequential, nil)
			}
			b.StopTimer()
			os.Remove(sidecarPath(path))
			openBench(b, path, c.sequential, &heap)
			b.ReportMetric(float64(heap)/1e6, "heap-MB")
		})
	}
}

// BenchmarkIndexReopen opens from the sidecar (a reopen).
func BenchmarkIndexReopen(b *testing.B) {
	path := benchBigFile(b)
	os.Remove(sidecarPath(path))
	mustOpenBench(b, path)
	if _, err := os.Stat(sidecarPath(path)); err != nil {
		b.Fatal("no sidecar saved:", err)
	}
	b.ReportAllocs()
	var heap uint64
	for b.Loop() {
		openBench(b, path, false, nil)
	}
	b.StopTimer()
	openBench(b, path, false, &heap)
	b.ReportMetric(float64(heap)/1e6, "heap-MB")
}

func mustOpenBench(b *testing.B, path string) {
	s, err := Open(context.Background(), path, OpenOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
}

// BenchmarkDecodeSidecar decodes the sidecar of the benchmark session
// (most of a reopen's CPU).
func BenchmarkDecodeSidecar(b *testing.B) {
	path := benchBigFile(b)
	os.Remove(sidecarPath(path))
	mustOpenBench(b, path)
	data, err := os.ReadFile(sidecarPath(path))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeSidecar(data); err != nil {
			b.Fatal(err)
		}
	}
}
