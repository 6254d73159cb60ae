package tools

import (
	"strings"
	"testing"
)

// TestStreamTailsSplitAtEveryPosition: a secret streamed in two deltas, cut
// at every byte, never reaches the output whole or as a ≥4-byte prefix
// followed by its rest, and the reassembled text shows the mask.
func TestStreamTailsSplitAtEveryPosition(t *testing.T) {
	r := NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t value-4711"})
	for _, tc := range []struct{ text, secret string }{
		{"the key is s3cr3t value-4711, keep it", "s3cr3t value-4711"},
		{"use sk-abcdefghijklmnopqrstuvwx now", "sk-abcdefghijklmnopqrstuvwx"},
		{"export MY_TOKEN=hunter2hunter2 done", "hunter2hunter2"},
		{"Authorization: Bearer abcdefgh12345678 ok", "abcdefgh12345678"},
		{`{"api_key": "hunter2hunter2"}`, "hunter2hunter2"},
		{"id AKIAABCDEFGHIJKLMNOP.", "AKIAABCDEFGHIJKLMNOP"},
	} {
		for cut := 0; cut <= len(tc.text); cut++ {
			for cut2 := cut; cut2 <= len(tc.text); cut2 += 3 {
				st := r.NewStreamTails()
				var parts []string
				for _, d := range []string{tc.text[:cut], tc.text[cut:cut2], tc.text[cut2:]} {
					parts = append(parts, st.Append("k", d))
				}
				parts = append(parts, st.Flush("k"))
				got := strings.Join(parts, "")
				if strings.Contains(got, tc.secret) || !strings.Contains(got, Mask) {
					t.Fatalf("%q cut at %d,%d: sent %q", tc.text, cut, cut2, parts)
				}
				if want := r.Redact(tc.text); got != want {
					t.Fatalf("%q cut at %d,%d: reassembled %q, want %q", tc.text, cut, cut2, got, want)
				}
				if st.Len() != 0 {
					t.Fatal("Flush left text held")
				}
			}
		}
	}
}

// TestHoldLenIsBounded: a run without spaces streams once it passes MaxHold.
func TestHoldLenIsBounded(t *testing.T) {
	r := NewRedactor(nil)
	if n := r.HoldLen(strings.Repeat("é", 1000)); n > MaxHold || n < MaxHold-1 {
		t.Fatalf("HoldLen of a long run: %d", n)
	}
	if n := r.HoldLen("plain words end here "); n != 0 {
		t.Fatalf("text ending in a space holds %d", n)
	}
}

func BenchmarkStreamTailsAppend(b *testing.B) {
	r := NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t-value-4711", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123"})
	st := r.NewStreamTails()
	deltas := strings.Fields("Here is a typical streamed answer, with words of varied length and some code like fmt.Println(x) in it.")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		st.Append("k", deltas[i%len(deltas)]+" ")
	}
}
