package tools

// Review before apply: what an approval request shows of an edit or a write
// (Preview), and how the tool writes the content the user accepted instead
// of its own result (Reviewed), telling the model which of its hunks were
// dropped.

import (
	"context"
	"fmt"
	"strings"

	"github.com/pi-lsp/pi-lsp/env"
)

// PreviewCap is the largest before+after (bytes) a preview carries; above
// it only the diff is sent and the preview is marked cut.
const PreviewCap = 512 << 10

// Preview is the change an edit or write call would make, computed without
// writing: the file before and after (LF line endings) and a unified diff.
type Preview struct {
	Path    string `json:"path"` // absolute
	Before  string `json:"before"`
	After   string `json:"after"`
	Diff    string `json:"diff"`
	NewFile bool   `json:"newFile,omitempty"`
	// Cut: before and after were left out (too large, or they hold a
	// secret that the wire would mask); only the diff is meaningful, and a
	// reply with content is refused.
	Cut       bool   `json:"cut,omitempty"`
	CutReason string `json:"cutReason,omitempty"`
}

// Reviewed is the user's verdict on a previewed change: Content is the whole
// file as the user accepted it (hunks rejected, or edited by hand). Before
// and After are the preview it answers.
type Reviewed struct {
	Before, After string
	Content       string
}

// Reviewable reports whether a tool's calls can be previewed and answered
// with content.
func Reviewable(tool string) bool { return tool == "edit" || tool == "write" }

// PreviewCall computes the preview of an edit or write call. ok is false
// for other tools and for calls that would fail (the tool then reports the
// failure when it runs).
func PreviewCall(ctx context.Context, e env.Env, call Call) (p Preview, ok bool) {
	p, failure, ok := CheckCall(ctx, e, call)
	return p, ok && failure == ""
}

// CheckCall is PreviewCall that also says why an edit would fail: failure
// is the error the edit tool would return if it ran now (its text, word for
// word), so a call that cannot apply is failed before anyone is asked to
// approve it. ok is false for tools without a preview and for calls whose
// arguments the tool itself rejects (it reports that when it runs).
func CheckCall(ctx context.Context, e env.Env, call Call) (p Preview, failure string, ok bool) {
	switch call.Name {
	case "edit":
		var a editArgs
		if decodeArgs(call.Args, &a) != nil {
			return Preview{}, "", false
		}
		if a.Path == "" {
			a.Path = a.FilePath
		}
		edits, err := a.parseEdits()
		if a.Path == "" || err != nil {
			return Preview{}, "", false
		}
		abs := resolvePath(e, a.Path)
		data, err := e.ReadFile(ctx, abs)
		if err != nil {
			if ctx.Err() != nil {
				return Preview{}, "", false
			}
			return Preview{}, fmt.Sprintf("Could not edit file: %s. %s.", a.Path, fsErrorText(err, a.Path)), true
		}
		base := normalizeLF(strings.TrimPrefix(string(data), "\uFEFF"))
		updated, err := applyEdits(base, edits, a.Path)
		if err != nil {
			return Preview{}, err.Error(), true
		}
		return newPreview(e, abs, base, updated, false), "", true
	case "write":
		var a writeArgs
		if decodeArgs(call.Args, &a) != nil || a.Content == nil {
			return Preview{}, "", false
		}
		if a.Path == "" {
			a.Path = a.FilePath
		}
		if a.Path == "" {
			return Preview{}, "", false
		}
		abs := resolvePath(e, a.Path)
		old, newFile := "", false
		if data, err := e.ReadFile(ctx, abs); err == nil {
			old = string(data)
		} else if env.CodeOf(err) == env.CodeNotFound {
			newFile = true
		} else {
			return Preview{}, "", false
		}
		return newPreview(e, abs, old, *a.Content, newFile), "", true
	}
	return Preview{}, "", false
}

func newPreview(e env.Env, abs, before, after string, newFile bool) Preview {
	p := Preview{Path: abs, Before: before, After: after, NewFile: newFile,
		Diff: renderUnified(displayPath(e, abs), newFile || before == "", diffLines(before, after))}
	if len(before)+len(after) > PreviewCap {
		p.Before, p.After, p.Cut = "", "", true
		p.CutReason = fmt.Sprintf("the file is larger than the %d KiB preview cap", PreviewCap>>10)
	}
	return p
}

// Mask leaves out before and after when they hold a secret the redactor
// would mask (a masked copy accepted as content would write the mask into
// the file), and masks the diff.
func (p Preview) Mask(r *Redactor) Preview {
	if r == nil {
		return p
	}
	if !p.Cut && (r.Redact(p.Before) != p.Before || r.Redact(p.After) != p.After) {
		p.Before, p.After, p.Cut = "", "", true
		p.CutReason = "the file holds a secret"
	}
	p.Diff = r.Redact(p.Diff)
	return p
}

// changeRun is one contiguous run of changed lines (no context): old lines
// from oldStart (0-based) replaced by the new lines.
type changeRun struct {
	oldStart int
	del, ins []string
}

func changeRuns(a, b string) []changeRun {
	var out []changeRun
	oldN := 0
	ops := diffLines(a, b)
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			oldN++
			i++
			continue
		}
		r := changeRun{oldStart: oldN}
		for ; i < len(ops) && ops[i].kind != ' '; i++ {
			if ops[i].kind == '-' {
				r.del = append(r.del, ops[i].text)
				oldN++
			} else {
				r.ins = append(r.ins, ops[i].text)
			}
		}
		out = append(out, r)
	}
	return out
}

func (r changeRun) equal(o changeRun) bool {
	return r.oldStart == o.oldStart && strings.Join(r.del, "") == strings.Join(o.del, "") && strings.Join(r.ins, "") == strings.Join(o.ins, "")
}

func (r changeRun) overlaps(o changeRun) bool {
	if len(r.del) == 0 || len(o.del) == 0 {
		// An insertion overlaps what starts or ends where it goes.
		return o.oldStart <= r.oldStart+len(r.del) && r.oldStart <= o.oldStart+len(o.del)
	}
	return r.oldStart < o.oldStart+len(o.del) && o.oldStart < r.oldStart+len(r.del)
}

func (r changeRun) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "@@ line %d @@\n", r.oldStart+1)
	for _, l := range r.del {
		b.WriteString("-" + strings.TrimSuffix(l, "\n") + "\n")
	}
	for _, l := range r.ins {
		b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
	}
	return b.String()
}

// ReviewReport says how the accepted content differs from the proposal:
// which of the proposed hunks (change runs of before→after) were applied,
// dropped or changed, and whether the user made changes of their own. It is
// "" when the user accepted the proposal as it was.
func ReviewReport(before, after, accepted string) string {
	if accepted == after {
		return ""
	}
	proposed := changeRuns(before, after)
	got := changeRuns(before, accepted)
	var applied, dropped, changed []int
	matched := make([]bool, len(got))
	for i, p := range proposed {
		state := "dropped"
		for j, g := range got {
			if p.equal(g) {
				state, matched[j] = "applied", true
				break
			}
			if p.overlaps(g) {
				state, matched[j] = "changed", true
			}
		}
		switch state {
		case "applied":
			applied = append(applied, i)
		case "dropped":
			dropped = append(dropped, i)
		default:
			changed = append(changed, i)
		}
	}
	own := 0
	for _, m := range matched {
		if !m {
			own++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The user reviewed this change before it was applied and accepted %d of its %d hunk(s) as proposed.", len(applied), len(proposed))
	const maxShown = 4 << 10
	list := func(title string, idx []int) {
		if len(idx) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s (%d):\n", title, len(idx))
		for _, i := range idx {
			if b.Len() > maxShown {
				b.WriteString("…\n")
				return
			}
			b.WriteString(proposed[i].render())
		}
	}
	list("Dropped hunks — NOT applied, the file keeps its old lines there", dropped)
	list("Hunks the user changed before applying", changed)
	if own > 0 {
		fmt.Fprintf(&b, "\nThe user also made %d change(s) of their own.", own)
	}
	b.WriteString("\nThe file now holds the user's version: read it again before editing it further, and do not re-apply dropped hunks unless the user asks.")
	return b.String()
}
