package display_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/display"
)

func TestOpWireForm(t *testing.T) {
	for _, c := range []struct {
		op   display.Op
		wire string
	}{
		{display.Op{Op: display.OpSet, Path: []any{"status"}, Value: "running"}, `["s",["status"],"running"]`},
		{display.Op{Op: display.OpSet, Path: []any{"retry"}}, `["s",["retry"],null]`},
		{display.Op{Op: display.OpAppend, Path: []any{"items", 1, "text"}, Value: "Hel"}, `["a",["items",1,"text"],"Hel"]`},
		{display.Op{Op: display.OpPush, Path: []any{"errors"}, Value: "boom"}, `["p",["errors"],"boom"]`},
		{display.Op{Op: display.OpDelete, Path: []any{"pending", "plan"}}, `["d",["pending","plan"]]`},
		{display.Op{Op: display.OpMerge, Path: []any{}, Value: display.Fields{{Key: "phase", Value: "idle"}, {Key: "retry", Value: nil}}},
			`["m",[],{"phase":"idle","retry":null}]`},
	} {
		b, err := json.Marshal(c.op)
		if err != nil || string(b) != c.wire {
			t.Fatalf("%+v marshals to %s, %v; want %s", c.op, b, err, c.wire)
		}
		var back display.Op
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		again, _ := json.Marshal(back)
		if back.Op == display.OpMerge { // decoded as a map: keys come back sorted
			again = b
		}
		if string(again) != c.wire || back.Op != c.op.Op {
			t.Fatalf("%s decodes to %+v (%s)", b, back, again)
		}
	}
	if _, err := json.Marshal(display.Op{Op: "move"}); err == nil {
		t.Fatal("an unknown op marshalled")
	}
}

func TestOpWireFormErrors(t *testing.T) {
	for _, c := range []struct{ wire, want string }{
		{`{"op":"set","path":["a"],"value":1}`, "an op is an array"},
		{`["s"]`, "needs a code and a path"},
		{`[1,["a"],1]`, "op code"},
		{`["x",["a"],1]`, `unknown op code "x"`},
		{`["s",["a"]]`, "needs 3 elements"},
		{`["d",["a"],1]`, "needs 2 elements"},
		{`["a","items.0.text","x"]`, "op path"},
	} {
		var op display.Op
		err := json.Unmarshal([]byte(c.wire), &op)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.wire, err, c.want)
		}
	}
	// A frame with one bad op does not decode: the client resyncs.
	var f display.Frame
	if err := json.Unmarshal([]byte(`{"version":2,"ops":[["s",["a"],1],["z",[]]]}`), &f); err == nil {
		t.Fatal("a frame with an unknown op decoded")
	}
	var ok display.Frame
	if err := json.Unmarshal([]byte(`{"version":2,"ops":[["s",["a"],1]]}`), &ok); err != nil ||
		!reflect.DeepEqual(ok.Ops, []display.Op{{Op: display.OpSet, Path: []any{"a"}, Value: float64(1)}}) {
		t.Fatalf("frame = %+v, %v", ok, err)
	}
}

func TestPatchMerge(t *testing.T) {
	var doc any
	_ = json.Unmarshal([]byte(`{"phase":"turn","tokens":{"input":1,"output":2},"items":[{"text":"a"}]}`), &doc)
	var ops []display.Op
	if err := json.Unmarshal([]byte(`[["m",[],{"phase":"idle","status":"idle"}],["m",["tokens"],{"output":9}],["m",["items",0],{"streaming":false}]]`), &ops); err != nil {
		t.Fatal(err)
	}
	doc, err := display.Patch(doc, ops)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(doc)
	if want := `{"items":[{"streaming":false,"text":"a"}],"phase":"idle","status":"idle","tokens":{"input":1,"output":9}}`; string(got) != want {
		t.Fatalf("patched = %s\nwant %s", got, want)
	}
	for _, bad := range []string{
		`[["m",["phase"],{"x":1}]]`,   // not an object at the path
		`[["m",["tokens"],[1]]]`,      // not an object value
		`[["m",["nope"],{"x":1}]]`,    // no such key
		`[["m",["items",3],{"x":1}]]`, // no such index
	} {
		if err := json.Unmarshal([]byte(bad), &ops); err != nil {
			t.Fatal(err)
		}
		if _, err := display.Patch(doc, ops); err == nil {
			t.Errorf("%s applied", bad)
		}
	}
}
