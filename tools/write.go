package tools

import (
	"context"
	"fmt"

	"github.com/pi-lsp/pi-lsp/env"
)

const writeSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"Path to the file to write (relative or absolute)"},` +
	`"content":{"type":"string","description":"Content to write to the file"}},` +
	`"required":["path","content"]}`

func writeTool(locks *fileLocks) Tool {
	return newTool("write",
		"Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.",
		CategoryEdit, writeSchema,
		func(ctx context.Context, call Call, x Exec) Result { return runWrite(ctx, call, x, locks) })
}

type writeArgs struct {
	Path     string  `json:"path"`
	FilePath string  `json:"file_path"`
	Content  *string `json:"content"`
}

func runWrite(ctx context.Context, call Call, x Exec, locks *fileLocks) Result {
	var a writeArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("write", err)
	}
	if a.Path == "" {
		a.Path = a.FilePath
	}
	if a.Path == "" {
		return errorResult("write: path is required")
	}
	if a.Content == nil {
		return errorResult("write: content is required")
	}
	abs := resolvePath(x.Env, a.Path)
	unlock := locks.lock(abs)
	defer unlock()

	var old string
	if data, err := x.Env.ReadFile(ctx, abs); err == nil {
		old = string(data)
	} else if c := env.CodeOf(err); c != env.CodeNotFound && c != env.CodeTooLarge {
		return errorResult(fsErrorText(err, a.Path))
	}
	content, report := *a.Content, ""
	if rv := call.Reviewed; rv != nil {
		if old != rv.Before {
			return errorResult(fmt.Sprintf("Could not write file: %s changed while the write waited for approval; nothing was written. Read it again and redo the change.", a.Path))
		}
		content = rv.Content
		report = ReviewReport(rv.Before, rv.After, rv.Content)
	}
	if err := x.Env.WriteFile(ctx, abs, []byte(content)); err != nil {
		return errorResult(fsErrorText(err, a.Path))
	}
	text := fmt.Sprintf("Successfully wrote %d bytes to %s", len(content), a.Path)
	if report != "" {
		text = fmt.Sprintf("Wrote the user's reviewed version (%d bytes) to %s.\n%s", len(content), a.Path, report)
	}
	res := textResult(text)
	res.Path = abs
	res.Diff = unifiedDiff(displayPath(x.Env, abs), old, content)
	return withDetails(res, writeDetails{UnifiedDiff: res.Diff, UserModified: report != "", Path: abs})
}

// writeDetails keeps the diff the editor showed, for history.
type writeDetails struct {
	UnifiedDiff  string `json:"unifiedDiff,omitempty"`
	UserModified bool   `json:"userModified,omitempty"`
	Path         string `json:"path,omitempty"`
}
