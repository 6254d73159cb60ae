package llm

import "testing"

func TestArgumentsCutOff(t *testing.T) {
	for s, want := range map[string]bool{
		``:                        false,
		`{}`:                      false,
		`{"path":"a"}`:            false,
		`"{\"path\":\"a\"}"`:      false, // double-encoded, whole
		`{"path":"a","content":"`: true,
		`{"path":"a"`:             true,
		`{"path":`:                true,
		`not json`:                true,
	} {
		if got := argumentsCutOff(s); got != want {
			t.Errorf("argumentsCutOff(%q) = %v, want %v", s, got, want)
		}
	}
}
