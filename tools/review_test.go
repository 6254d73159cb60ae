package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestPreviewAndReviewedEdit(t *testing.T) {
	f := newFixture(t)
	before := "a\nb\nc\nd\ne\nf\ng\nh\nk\nl\nm\nn\ni\nj\n"
	f.write(map[string]string{"x.txt": before})
	args := `{"path":"x.txt","edits":[{"oldText":"b\n","newText":"B\n"},{"oldText":"i\n","newText":"I\n"}]}`
	p, ok := PreviewCall(context.Background(), f.env, Call{Name: "edit", Args: json.RawMessage(args)})
	if !ok || p.Before != before || p.After != strings.NewReplacer("b\n", "B\n", "i\n", "I\n").Replace(before) || strings.Count(p.Diff, "@@ -") != 2 {
		t.Fatalf("preview %+v", p)
	}
	// The user keeps the first hunk only.
	accepted := strings.Replace(before, "b\n", "B\n", 1)
	call := Call{ID: "1", Name: "edit", Args: json.RawMessage(args), Reviewed: &Reviewed{Before: p.Before, After: p.After, Content: accepted}}
	res := f.tools["edit"].Execute(context.Background(), call, Exec{Env: f.env})
	if res.IsError || f.read("x.txt") != accepted {
		t.Fatalf("result %q file %q", res.Text(), f.read("x.txt"))
	}
	if txt := res.Text(); !strings.Contains(txt, "accepted 1 of its 2 hunk(s)") || !strings.Contains(txt, "-i\n+I") || strings.Contains(txt, "+B") {
		t.Fatalf("report:\n%s", txt)
	}
	// A file changed since the preview is not overwritten.
	f.write(map[string]string{"x.txt": "changed\n"})
	res = f.tools["edit"].Execute(context.Background(), call, Exec{Env: f.env})
	if !res.IsError || f.read("x.txt") != "changed\n" {
		t.Fatalf("stale review wrote: %q", res.Text())
	}
}

func TestReviewReportKinds(t *testing.T) {
	before := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	after := "1\nTWO\n3\n4\n5\n6\n7\nEIGHT\n9\n"
	if r := ReviewReport(before, after, after); r != "" {
		t.Fatalf("accepted as proposed: %q", r)
	}
	r := ReviewReport(before, after, "1\nzwei\n3\n4\n5\n6\n7\n8\n9\nnew\n")
	for _, want := range []string{"accepted 0 of its 2 hunk(s)", "Dropped hunks", "+EIGHT", "changed before applying", "+TWO", "1 change(s) of their own"} {
		if !strings.Contains(r, want) {
			t.Fatalf("report lacks %q:\n%s", want, r)
		}
	}
}

func FuzzReviewReport(f *testing.F) {
	f.Add("a\nb\n", "a\nc\n", "a\nb\n")
	f.Add("", "x", "y\n")
	f.Fuzz(func(t *testing.T, before, after, accepted string) {
		r := ReviewReport(before, after, accepted)
		if (r == "") != (accepted == after) {
			t.Fatalf("report %q for accepted==after %v", r, accepted == after)
		}
	})
}

func TestSearchFilesFuzzyAndIgnored(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{
		".gitignore": "dist/\n", "src/calcView.ts": "", "src/other/calc_view_helper.go": "", "dist/calcView.js": "", "README.md": "",
	})
	ms, _, err := SearchFiles(context.Background(), f.env, f.dir, "calcv", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Path)
	}
	if strings.Join(got, ",") != "src/calcView.ts,src/other/calc_view_helper.go" {
		t.Fatalf("got %v", got)
	}
	if ms[0].Positions[0] != len("src/") {
		t.Fatalf("positions %v", ms[0].Positions)
	}
	all, _, _ := SearchFiles(context.Background(), f.env, f.dir, "", 2)
	if len(all) != 2 || all[0].Path != ".gitignore" && all[0].Path != "README.md" {
		t.Fatalf("empty query: %+v", all)
	}
}
