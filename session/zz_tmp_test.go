package session

import (
	"context"
	"os"
	"testing"
)

func BenchmarkTmpDecodeSidecar(b *testing.B) {
	data, err := os.ReadFile("/tmp/i15c/chain.jsonl.idx")
	if err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeSidecar(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTmpOpenSidecar(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := Open(context.Background(), "/tmp/i15c/chain.jsonl", OpenOptions{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
