package tools

// A line diff for the edit and write tools. No listed dependency offers one
// (go-git's utils/diff would pull sergi/go-diff into go.mod), so this is
// Myers' O(ND) algorithm over interned lines, with common prefix/suffix
// trimmed and a cap on D beyond which the changed middle is shown as one
// replacement.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxDiffEdits caps the edit distance Myers explores (memory is O(D²)).
const maxDiffEdits = 2000

type diffOp struct {
	kind byte   // ' ' equal, '-' deleted, '+' inserted
	text string // the line, with its "\n" when it has one
}

// diffLines returns the line edit script from a to b: equal lines, and in
// each changed run all deletions before all insertions.
func diffLines(a, b string) []diffOp {
	al, bl := splitLinesKeep(a), splitLinesKeep(b)
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	var ops []diffOp
	for _, l := range al[:pre] {
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, myers(al[pre:len(al)-suf], bl[pre:len(bl)-suf])...)
	for _, l := range al[len(al)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return groupChanges(ops)
}

func splitLinesKeep(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// myers computes a shortest edit script from a to b.
func myers(a, b []string) []diffOp {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	// Intern lines so the inner loop compares ints.
	ids := map[string]int32{}
	intern := func(ls []string) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	ai, bi := intern(a), intern(b)
	n, m := len(ai), len(bi)
	maxD := n + m
	if maxD > maxDiffEdits {
		maxD = maxDiffEdits
	}
	off := n + m + 1
	v := make([]int32, 2*off+1)
	var trace [][]int32 // trace[d] = v[off-d-1 .. off+d+1] before round d
	for d := 0; d <= maxD; d++ {
		snap := make([]int32, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && ai[x] == bi[y] {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(a, b, trace, d)
			}
		}
	}
	// Too different: one deletion of a and one insertion of b.
	ops := make([]diffOp, 0, n+m)
	for _, l := range a {
		ops = append(ops, diffOp{'-', l})
	}
	for _, l := range b {
		ops = append(ops, diffOp{'+', l})
	}
	return ops
}

func backtrack(a, b []string, trace [][]int32, dEnd int) []diffOp {
	var rev []diffOp
	x, y := len(a), len(b)
	for d := dEnd; d > 0; d-- {
		snap := trace[d] // state after round d-1, indexed k+d+1
		at := func(k int) int { return int(snap[k+d+1]) }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, diffOp{' ', a[x]})
		}
		if prevK == k+1 {
			y--
			rev = append(rev, diffOp{'+', b[y]})
		} else {
			x--
			rev = append(rev, diffOp{'-', a[x]})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{' ', a[x]})
	}
	ops := make([]diffOp, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}

// groupChanges reorders each run of changes to deletions first.
func groupChanges(ops []diffOp) []diffOp {
	out := make([]diffOp, 0, len(ops))
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			out = append(out, ops[i])
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].kind != ' ' {
			j++
		}
		for _, o := range ops[i:j] {
			if o.kind == '-' {
				out = append(out, o)
			}
		}
		for _, o := range ops[i:j] {
			if o.kind == '+' {
				out = append(out, o)
			}
		}
		i = j
	}
	return out
}

// unifiedDiff renders a unified diff (3 lines of context) of a file changing
// from old to new; "" when nothing changed. An empty old is shown as a new
// file.
func unifiedDiff(name, old, new string) string {
	if old == new {
		return ""
	}
	return renderUnified(name, old == "", diffLines(old, new))
}

// renderUnified renders ops (from diffLines) as unifiedDiff does; newFile
// shows the old side as /dev/null.
func renderUnified(name string, newFile bool, ops []diffOp) string {
	if !slices.ContainsFunc(ops, func(o diffOp) bool { return o.kind != ' ' }) {
		return ""
	}
	const ctx = 3
	var b strings.Builder
	from := "a/" + name
	if newFile {
		from = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ b/%s\n", from, name)
	// Positions (0-based) of each op in the old and new files.
	oldAt := make([]int, len(ops)+1)
	newAt := make([]int, len(ops)+1)
	for i, o := range ops {
		oldAt[i+1], newAt[i+1] = oldAt[i], newAt[i]
		if o.kind != '+' {
			oldAt[i+1]++
		}
		if o.kind != '-' {
			newAt[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk starts ctx lines before this change and runs until a gap
		// of more than 2*ctx equal lines.
		start := max(i-ctx, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			gap := end
			for gap < len(ops) && ops[gap].kind == ' ' {
				gap++
			}
			if gap == len(ops) || gap-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = gap
		}
		oldN, newN := oldAt[end]-oldAt[start], newAt[end]-newAt[start]
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(oldAt[start], oldN), hunkRange(newAt[start], newN))
		for _, o := range ops[start:end] {
			b.WriteByte(o.kind)
			b.WriteString(strings.TrimSuffix(o.text, "\n"))
			b.WriteByte('\n')
			if !strings.HasSuffix(o.text, "\n") {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return b.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return strconv.Itoa(start) + ",0"
	}
	if n == 1 {
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
}

// piDiff renders pi's edit diff (details.diff): changed lines as "+N text" /
// "-N text" with line numbers padded to a common width, up to 4 lines of
// context as " N text", and " ... " for skipped lines. It also returns the
// first changed line in the new file (0 if none).
func piDiff(old, new string) (string, int) {
	return renderPi(diffLines(old, new), piDiffWidth(old, new))
}

// piDiffWidth is the width of the line numbers in piDiff.
func piDiffWidth(old, new string) int {
	return len(strconv.Itoa(max(strings.Count(old, "\n"), strings.Count(new, "\n")) + 1))
}

// renderPi renders ops (from diffLines) as piDiff does.
func renderPi(ops []diffOp, width int) (string, int) {
	const ctx = 4
	var out []string
	num := func(n int) string { return fmt.Sprintf("%*d", width, n) }
	skip := " " + strings.Repeat(" ", width) + " ..."
	oldN, newN, first := 1, 1, 0
	lastWasChange := false
	for i := 0; i < len(ops); {
		j := i
		for j < len(ops) && (ops[j].kind == ' ') == (ops[i].kind == ' ') {
			j++
		}
		run := ops[i:j]
		if run[0].kind != ' ' {
			if first == 0 {
				first = newN
			}
			for _, o := range run {
				text := strings.TrimSuffix(o.text, "\n")
				if o.kind == '+' {
					out = append(out, "+"+num(newN)+" "+text)
					newN++
				} else {
					out = append(out, "-"+num(oldN)+" "+text)
					oldN++
				}
			}
			lastWasChange = true
			i = j
			continue
		}
		leading, trailing := lastWasChange, j < len(ops)
		show := func(ls []diffOp) {
			for _, o := range ls {
				out = append(out, " "+num(oldN)+" "+strings.TrimSuffix(o.text, "\n"))
				oldN++
				newN++
			}
		}
		advance := func(n int) { oldN += n; newN += n }
		switch {
		case leading && trailing:
			if len(run) <= 2*ctx {
				show(run)
			} else {
				show(run[:ctx])
				out = append(out, skip)
				advance(len(run) - 2*ctx)
				show(run[len(run)-ctx:])
			}
		case leading:
			n := min(ctx, len(run))
			show(run[:n])
			if len(run) > n {
				out = append(out, skip)
				advance(len(run) - n)
			}
		case trailing:
			skipped := max(0, len(run)-ctx)
			if skipped > 0 {
				out = append(out, skip)
				advance(skipped)
			}
			show(run[skipped:])
		default:
			advance(len(run))
		}
		lastWasChange = false
		i = j
	}
	return strings.Join(out, "\n"), first
}
