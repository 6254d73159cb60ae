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
	if err := x.Env.WriteFile(ctx, abs, []byte(*a.Content)); err != nil {
		return errorResult(fsErrorText(err, a.Path))
	}
	res := textResult(fmt.Sprintf("Successfully wrote %d bytes to %s", len(*a.Content), a.Path))
	res.Path = abs
	res.Diff = unifiedDiff(displayPath(x.Env, abs), old, *a.Content)
	return res
}
