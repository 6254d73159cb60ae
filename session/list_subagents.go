package session

import (
	"context"
	"path/filepath"
)

// ListWithSubagents is List including the hidden sessions of subagents
// (the "subagents" subdirectory), whose Info.ParentSession names the
// session that started them.
func ListWithSubagents(ctx context.Context, root, cwd string) ([]Info, error) {
	dir := DirFor(root, cwd)
	files, err := sessionFiles(dir)
	if err != nil {
		return nil, err
	}
	sub, err := sessionFiles(filepath.Join(dir, SubagentDir))
	if err != nil {
		return nil, err
	}
	return infos(ctx, append(files, sub...))
}

// ListAllWithSubagents is ListAll including the subagents' sessions.
func ListAllWithSubagents(ctx context.Context, root string) ([]Info, error) {
	return listAll(ctx, root, true)
}
