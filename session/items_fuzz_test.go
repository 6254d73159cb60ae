package session

import (
	"testing"
)

// FuzzItemCounts checks the scanner's display counts (walkContent,
// setItems) against the decoded entry: on any line that decodes as an
// entry, the counts the index keeps equal MessageSlot's of the entry's
// context message, and nothing panics on any input.
func FuzzItemCounts(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"text","text":""},{"type":"toolCall","id":"c","name":"n","arguments":{}},{"type":"thinking","thinking":"t"}],"stopReason":"toolUse"}}`,
		`{"type":"message","id":"a","message":{"role":"assistant","content":[],"stopReason":"aborted"}}`,
		`{"type":"message","id":"a","message":{"role":"assistant","content":"text as a string"}}`,
		`{"type":"message","id":"a","message":{"role":"custom","customType":"x","content":"q","display":true}}`,
		`{"type":"message","id":"a","message":{"role":"toolResult","toolCallId":"c","toolName":"n","content":[{"type":"text","text":"o"}]}}`,
		`{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"te\u0078t","text":"\u0000"},{"type":"toolCall","id":"x"},{"type":"toolCall"}]}}`,
		`{"type":"message","id":"a","message":{"role":"bashExecution","command":"ls","output":""}}`,
		`{"type":"custom_message","id":"a","customType":"x","content":"c","display":true}`,
		`{"type":"branch_summary","id":"a","fromId":"b","summary":"s"}`,
		`{"type":"branch_summary","id":"a","fromId":"b","summary":""}`,
		`{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"text","text":"a"},1,null,[{"type":"toolCall"}]]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		li, err := scanLine(line)
		if err != nil {
			return
		}
		x := newIndex(false)
		x.add(li, line, 0)
		r := &x.recs[0]
		e, err := decodeEntry(line)
		if err != nil || e.ID == "" {
			return // left out when read: its counts are never shown
		}
		m, ok := e.ContextMessage()
		if !ok || r.kind == kCompaction {
			return
		}
		want := MessageSlot(e.ID, m)
		if r.kind == kMessage && r.role == 0 {
			return // not a slot
		}
		if int(r.items) != want.Items || int(r.calls) != want.Calls {
			t.Fatalf("index counts %d items %d calls, the decoded message %d and %d\n%s", r.items, r.calls, want.Items, want.Calls, line)
		}
	})
}
