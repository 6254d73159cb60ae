package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

const editSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"Path to the file to edit (relative or absolute)"},` +
	`"edits":{"type":"array","description":"One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",` +
	`"items":{"type":"object","properties":{` +
	`"oldText":{"type":"string","description":"Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."},` +
	`"newText":{"type":"string","description":"Replacement text for this targeted edit."}},` +
	`"required":["oldText","newText"],"additionalProperties":false}}},` +
	`"required":["path","edits"],"additionalProperties":false}`

func editTool(locks *fileLocks) Tool {
	return newTool("edit",
		"Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.",
		CategoryEdit, editSchema,
		func(ctx context.Context, call Call, x Exec) Result { return runEdit(ctx, call, x, locks) })
}

type editArgs struct {
	Path     string          `json:"path"`
	FilePath string          `json:"file_path"`
	Edits    json.RawMessage `json:"edits"`
	// pi's legacy single replacement
	OldText *string `json:"oldText"`
	NewText *string `json:"newText"`
}

// parseEdits reads edits[] (also when a model sends it as a JSON string) plus
// a legacy top-level oldText/newText pair.
func (a editArgs) parseEdits() ([]edit, error) {
	var edits []edit
	raw := a.Edits
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			raw = json.RawMessage(s)
		}
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &edits); err != nil {
			return nil, fmt.Errorf("edits must be an array of {oldText, newText}: %w", err)
		}
	}
	if a.OldText != nil && a.NewText != nil {
		edits = append(edits, edit{OldText: *a.OldText, NewText: *a.NewText})
	}
	return edits, nil
}

type editDetails struct {
	Diff             string `json:"diff"`
	FirstChangedLine int    `json:"firstChangedLine,omitempty"`
	// UnifiedDiff is the diff the editor showed live, kept so that history
	// shows the same (pi ignores unknown detail fields).
	UnifiedDiff string `json:"unifiedDiff,omitempty"`
	// UserModified: the user reviewed the change and wrote another version.
	UserModified bool   `json:"userModified,omitempty"`
	Path         string `json:"path,omitempty"` // absolute
}

func runEdit(ctx context.Context, call Call, x Exec, locks *fileLocks) Result {
	var a editArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("edit", err)
	}
	if a.Path == "" {
		a.Path = a.FilePath
	}
	if a.Path == "" {
		return errorResult("edit: path is required")
	}
	edits, err := a.parseEdits()
	if err != nil {
		return invalidArgs("edit", err)
	}
	abs := resolvePath(x.Env, a.Path)
	unlock := locks.lock(abs)
	defer unlock()

	data, err := x.Env.ReadFile(ctx, abs)
	if err != nil {
		return errorResult(fmt.Sprintf("Could not edit file: %s. %s.", a.Path, fsErrorText(err, a.Path)))
	}
	raw := string(data)
	bom := ""
	if strings.HasPrefix(raw, "\uFEFF") {
		bom, raw = "\uFEFF", raw[len("\uFEFF"):]
	}
	crlf := detectCRLF(raw)
	base := normalizeLF(raw)
	updated, err := applyEdits(base, edits, a.Path)
	if err != nil {
		return errorResult(err.Error())
	}
	var report string
	if rv := call.Reviewed; rv != nil {
		if base != rv.Before {
			return errorResult(fmt.Sprintf("Could not edit file: %s changed while the edit waited for approval; nothing was written. Read it again and redo the edit.", a.Path))
		}
		report = ReviewReport(rv.Before, rv.After, normalizeLF(rv.Content))
		updated = normalizeLF(rv.Content)
	}
	final := updated
	if crlf {
		final = strings.ReplaceAll(updated, "\n", "\r\n")
	}
	if err := x.Env.WriteFile(ctx, abs, []byte(bom+final)); err != nil {
		return errorResult(fmt.Sprintf("Could not edit file: %s. %s.", a.Path, fsErrorText(err, a.Path)))
	}
	ops := diffLines(base, updated) // one diff for both renderings
	diff, first := renderPi(ops, piDiffWidth(base, updated))
	text := fmt.Sprintf("Successfully replaced %d block(s) in %s.", len(edits), a.Path)
	if report != "" {
		text = fmt.Sprintf("Wrote the user's reviewed version of your edit to %s.\n%s", a.Path, report)
	}
	res := textResult(text)
	res.Path = abs
	res.Diff = renderUnified(displayPath(x.Env, abs), base == "", ops)
	return withDetails(res, editDetails{Diff: diff, FirstChangedLine: first, UnifiedDiff: res.Diff, UserModified: report != "", Path: abs})
}

// detectCRLF reports whether the first line ending is CRLF.
func detectCRLF(s string) bool {
	lf := strings.IndexByte(s, '\n')
	return lf > 0 && s[lf-1] == '\r'
}
