package acp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/harness"
)

// /rewind and /undo: the session tree with the workspace's files.

var rewindCommands = []sdk.AvailableCommand{
	{Name: "rewind", Description: "Rewind code and conversation to before a turn (without a number: list the turns)", Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "turn number"}}},
	{Name: "undo", Description: "Undo the last turn: its file changes and its messages"},
}

// rewind runs /rewind [N] (N counts the user messages of the branch from
// 1) and /undo (the last one): the files become what they were just
// before that turn, and the conversation goes back to before it.
func (s *sess) rewind(ctx context.Context, name, arg string) (string, error) {
	turns, err := s.h.Turns()
	if err != nil {
		return "", err
	}
	if len(turns) == 0 {
		return "Nothing to rewind: no turn on this branch yet.", nil
	}
	n := len(turns)
	if name == "rewind" {
		if arg == "" {
			var b strings.Builder
			b.WriteString("Turns on this branch (/rewind N puts the files and the conversation back to before turn N):\n")
			for i, t := range turns {
				fmt.Fprintf(&b, "%d. %s\n", i+1, firstLine(t.Text, 70))
			}
			return b.String(), nil
		}
		if n, err = strconv.Atoi(arg); err != nil || n < 1 || n > len(turns) {
			return "", fmt.Errorf("want a turn number from 1 to %d, got %q", len(turns), arg)
		}
	}
	t := turns[n-1]
	res, err := s.h.Navigate(ctx, t.ID, harness.NavigateOptions{RestoreFiles: true})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Rewound to before turn %d (%q).", n, firstLine(t.Text, 60))
	if f := res.Files; f != nil {
		fmt.Fprintf(&b, " Files: %d restored, %d deleted.", f.Restored, f.Deleted)
		for _, x := range f.Failed {
			fmt.Fprintf(&b, "\nCould not write %s: %s", x.Path, x.Err)
		}
	}
	b.WriteString(" The files it replaced are kept: /rewind lists the turns of the branch you are on now.")
	return b.String(), nil
}
