package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pi-lsp/pi-lsp/session"
)

const sessionsUsage = `Usage:
  pi-lsp sessions list [--cwd DIR | --all] [--json] [--sessions-dir DIR]
  pi-lsp sessions show FILE [--json]
  pi-lsp sessions fork FILE ENTRY_ID [--at] [--json]
  pi-lsp sessions rewind FILE ENTRY_ID [--code-only|--chat-only|--preview] [--root DIR]... [--json]

list   sessions of a working directory (default: the current one), newest first
show   a session's header, size, leaf and what its context holds
fork   copy the branch ending just before the user message ENTRY_ID (or, with
       --at, ending at ENTRY_ID) to a new session file beside FILE
rewind move the session to ENTRY_ID and put the workspace's files back as they
       were there (--code-only: files only; --chat-only: conversation only;
       --preview: list what would change)
`

// RunSessions implements "pi-lsp sessions ...". It returns the exit code.
func RunSessions(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, sessionsUsage)
		return 2
	}
	var err error
	switch args[0] {
	case "list":
		err = sessionsList(ctx, args[1:], stdout)
	case "show":
		err = sessionsShow(ctx, args[1:], stdout, stderr)
	case "fork":
		err = sessionsFork(ctx, args[1:], stdout)
	case "rewind":
		err = sessionsRewind(ctx, args[1:], stdout) // rewind.go
	case "help", "-h", "--help":
		fmt.Fprint(stdout, sessionsUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "pi-lsp sessions: unknown command %q\n\n%s", args[0], sessionsUsage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "pi-lsp sessions %s: %v\n", args[0], err)
		if _, usage := err.(usageError); usage {
			fmt.Fprint(stderr, "\n"+sessionsUsage)
			return 2
		}
		return 1
	}
	return 0
}

type usageError string

func (e usageError) Error() string { return string(e) }

// parseInterspersed parses flags that may come before, between or after
// the positional arguments, and checks their number.
func parseInterspersed(fs *flag.FlagSet, args []string, positional int) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError(err.Error())
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != positional {
		return nil, usageError(fmt.Sprintf("want %d argument(s), got %d", positional, len(pos)))
	}
	return pos, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func sessionsList(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	cwd := fs.String("cwd", "", "working directory (default: current)")
	all := fs.Bool("all", false, "every working directory")
	asJSON := fs.Bool("json", false, "JSON output")
	root := fs.String("sessions-dir", session.DefaultRoot(), "sessions root")
	if _, err := parseInterspersed(fs, args, 0); err != nil {
		return err
	}
	var list []session.Info
	var err error
	if *all {
		list, err = session.ListAll(ctx, *root)
	} else {
		dir := *cwd
		if dir == "" {
			if dir, err = os.Getwd(); err != nil {
				return err
			}
		}
		if dir, err = filepath.Abs(dir); err != nil {
			return err
		}
		list, err = session.List(ctx, *root, dir)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		if list == nil {
			list = []session.Info{}
		}
		return writeJSON(stdout, list)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODIFIED\tENTRIES\tID\tTITLE\tLAST PROMPT\tPATH")
	for _, in := range list {
		title := session.Title(in.Name, in.FirstMessage)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", in.Modified.Local().Format(time.DateTime), in.EntryCount, shortID(in.ID), oneLine(title, 60), oneLine(session.Title("", in.LastMessage), 40), in.Path)
	}
	return tw.Flush()
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// showResult is what "sessions show" prints.
type showResult struct {
	Path            string   `json:"path"`
	Version         int      `json:"version"`
	FileVersion     int      `json:"fileVersion"`
	ID              string   `json:"id"`
	Cwd             string   `json:"cwd"`
	Name            string   `json:"name,omitempty"`
	ParentSession   string   `json:"parentSession,omitempty"`
	Entries         int      `json:"entries"`
	LeafID          string   `json:"leafId"`
	BranchEntries   int      `json:"branchEntries"`
	ContextMessages int      `json:"contextMessages"`
	Model           string   `json:"model"`
	ThinkingLevel   string   `json:"thinkingLevel"`
	Warnings        []string `json:"warnings,omitempty"`
}

func sessionsShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parseInterspersed(fs, args, 1)
	if err != nil {
		return err
	}
	s, err := session.Open(ctx, pos[0], session.OpenOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer s.Close()
	info, err := s.ContextInfo(ctx)
	if err != nil {
		return err
	}
	h := s.Header()
	r := showResult{
		Path: s.Path(), Version: h.Version, FileVersion: s.FileVersion(), ID: h.ID, Cwd: h.Cwd, Name: s.Name(),
		ParentSession: h.ParentSession, Entries: s.EntryCount(), LeafID: s.LeafID(), BranchEntries: s.BranchLen(),
		ContextMessages: info.Messages, ThinkingLevel: info.ThinkingLevel, Warnings: s.Warnings(),
	}
	if info.Provider != "" || info.ModelID != "" {
		r.Model = info.Provider + "/" + info.ModelID
	}
	if *asJSON {
		return writeJSON(stdout, r)
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 1, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s:\t%v\n", k, v) }
	row("path", r.Path)
	if r.FileVersion != r.Version {
		row("version", fmt.Sprintf("%d (migrated from %d in memory)", r.Version, r.FileVersion))
	} else {
		row("version", r.Version)
	}
	row("id", r.ID)
	row("cwd", r.Cwd)
	if r.Name != "" {
		row("name", r.Name)
	}
	if r.ParentSession != "" {
		row("parentSession", r.ParentSession)
	}
	row("entries", r.Entries)
	row("leafId", orDash(r.LeafID))
	row("branchEntries", r.BranchEntries)
	row("contextMessages", r.ContextMessages)
	row("model", orDash(r.Model))
	row("thinkingLevel", r.ThinkingLevel)
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sessionsFork(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("fork", flag.ContinueOnError)
	at := fs.Bool("at", false, "end the new branch at ENTRY_ID instead of just before it")
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parseInterspersed(fs, args, 2)
	if err != nil {
		return err
	}
	src, err := session.Open(ctx, pos[0], session.OpenOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer src.Close()
	var text string
	if !*at {
		e, err := src.Entry(pos[1])
		if err != nil {
			return err
		}
		text = e.UserText()
	}
	// Like pi, the fork goes beside its source.
	dst, err := session.ForkWith(ctx, src, "", pos[1], session.ForkOptions{At: *at, Dir: filepath.Dir(src.Path())})
	if err != nil {
		return err
	}
	defer dst.Close()
	if *asJSON {
		return writeJSON(stdout, map[string]any{"path": dst.Path(), "id": dst.ID(), "entries": dst.EntryCount(), "text": text})
	}
	fmt.Fprintln(stdout, dst.Path())
	if text != "" {
		fmt.Fprintf(stdout, "\nmessage to edit and resend:\n%s\n", text)
	}
	return nil
}
