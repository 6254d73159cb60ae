package session

import (
	"context"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time (user + system) the process has used so far: on
// a machine loaded by other work it is a steadier measure than wall time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter reports the CPU time per iteration of a b.Loop as cpu-ms/op.
type cpuMeter struct {
	t time.Duration
	n int
}

func (m *cpuMeter) start(b *testing.B) { m.t -= cpuTime(b) }
func (m *cpuMeter) end(b *testing.B)   { m.t += cpuTime(b); m.n++ }
func (m *cpuMeter) report(b *testing.B) {
	if m.n > 0 {
		b.ReportMetric(float64(m.t.Microseconds())/1e3/float64(m.n), "cpu-ms/op")
	}
}

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
// With cpu, only the open is timed and metered, not the Close (which
// saves the index sidecar after a full scan, off the open's path).
func openBench(b *testing.B, path string, sequential bool, heap *uint64, cpu *cpuMeter) {
	s := &Session{path: path, readOnly: true, sequential: sequential, parallel: !sequential}
	if cpu != nil {
		cpu.start(b)
	}
	if err := s.openAndLoad(context.Background()); err != nil {
		b.Fatal(err)
	}
	if cpu != nil {
		cpu.end(b)
		b.StopTimer()
		defer b.StartTimer()
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
// parallel scan (parallelMin as it is) and with it turned off. The time and
// cpu-ms/op are the open's; the sidecar is saved after it (at Close here)
// and measured by BenchmarkSaveSidecar.
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
			var cpu cpuMeter
			for b.Loop() {
				b.StopTimer()
				os.Remove(sidecarPath(path))
				b.StartTimer()
				openBench(b, path, c.sequential, nil, &cpu)
			}
			b.StopTimer()
			cpu.report(b)
			os.Remove(sidecarPath(path))
			openBench(b, path, c.sequential, &heap, nil)
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
	var cpu cpuMeter
	for b.Loop() {
		openBench(b, path, false, nil, &cpu)
	}
	b.StopTimer()
	cpu.report(b)
	openBench(b, path, false, &heap, nil)
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

// BenchmarkSaveSidecar encodes and writes the index sidecar of the
// benchmark session, as a first open does after its scan.
func BenchmarkSaveSidecar(b *testing.B) {
	path := benchBigFile(b)
	os.Remove(sidecarPath(path))
	s := &Session{path: path, readOnly: true}
	if err := s.openAndLoad(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	var cpu cpuMeter
	for b.Loop() {
		cpu.start(b)
		if err := s.saveSidecar(); err != nil {
			b.Fatal(err)
		}
		cpu.end(b)
	}
	cpu.report(b)
}
