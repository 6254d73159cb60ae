package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/session"
)

// sessionsRewind implements "pi-lsp sessions rewind FILE ENTRY_ID
// [--code-only|--chat-only]": what session/navigate with "files":
// "restore" does in the editor (or session/restoreFiles with --code-only,
// a plain navigate with --chat-only), on a session no process has open.
func sessionsRewind(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("rewind", flag.ContinueOnError)
	codeOnly := fs.Bool("code-only", false, "restore the files only; the conversation stays")
	chatOnly := fs.Bool("chat-only", false, "move the conversation only; no file changes")
	dryRun := fs.Bool("preview", false, "list what a restore would change, change nothing")
	asJSON := fs.Bool("json", false, "JSON output")
	var roots multiFlag
	fs.Var(&roots, "root", "extra workspace root whose files are restored too (repeatable; permissions.roots are added)")
	pos, err := parseInterspersed(fs, args, 2)
	if err != nil {
		return err
	}
	if *codeOnly && *chatOnly {
		return usageError("--code-only and --chat-only exclude each other")
	}
	path, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	// The workspace is the session's cwd: read it without taking the lock.
	ro, err := session.Open(ctx, path, session.OpenOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	cwd := ro.Cwd()
	ro.Close()
	ck, err := checkpointSettings(settingsPath())
	if err != nil {
		return err
	}
	// The extra roots, as serve takes them: a root the checkpoints name but
	// not given here is left as it is.
	bc, err := (&common{roots: roots}).boundary(cwd)
	if err != nil {
		return err
	}
	h := harness.New(harness.Config{Env: env.NewLocal(cwd), SessionsRoot: filepath.Dir(filepath.Dir(path)), Checkpoints: ck, Roots: bc.roots})
	defer h.Close()
	if _, err := h.OpenSession(ctx, path); err != nil {
		return err
	}
	out := map[string]any{"entryId": pos[1]}
	switch {
	case *dryRun:
		changes, err := h.RewindPreview(ctx, pos[1])
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(stdout, map[string]any{"files": changes})
		}
		for _, c := range changes {
			fmt.Fprintf(stdout, "%-8s %s\n", c.Change, c.Path)
		}
		return nil
	case *codeOnly:
		files, err := h.RestoreFiles(ctx, pos[1])
		if err != nil {
			return err
		}
		out["files"] = files
	default:
		res, err := h.Navigate(ctx, pos[1], harness.NavigateOptions{RestoreFiles: !*chatOnly})
		if err != nil {
			return err
		}
		out["leafId"] = res.LeafID
		if res.EditorText != "" {
			out["editorText"] = res.EditorText
		}
		if res.Files != nil {
			out["files"] = res.Files
		}
	}
	if *asJSON {
		return writeJSON(stdout, out)
	}
	if l, ok := out["leafId"]; ok {
		fmt.Fprintf(stdout, "leaf: %s\n", l)
	}
	if f, ok := out["files"].(*harness.FilesResult); ok && f != nil {
		printFiles(stdout, *f)
	} else if f, ok := out["files"].(harness.FilesResult); ok {
		printFiles(stdout, f)
	}
	if t, ok := out["editorText"]; ok {
		fmt.Fprintf(stdout, "\nmessage to edit and resend:\n%s\n", t)
	}
	return nil
}

func printFiles(w io.Writer, f harness.FilesResult) {
	fmt.Fprintf(w, "files: %d restored, %d deleted\n", f.Restored, f.Deleted)
	for _, p := range f.Paths {
		fmt.Fprintf(w, "  %s\n", p)
	}
	for _, x := range f.Failed {
		fmt.Fprintf(w, "  FAILED %s: %s\n", x.Path, x.Err)
	}
}
