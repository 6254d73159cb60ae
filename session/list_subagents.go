package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	dirs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: list %s: %w", root, err)
	}
	var files []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		for _, p := range []string{filepath.Join(root, d.Name()), filepath.Join(root, d.Name(), SubagentDir)} {
			f, err := sessionFiles(p)
			if err != nil {
				return nil, err
			}
			files = append(files, f...)
		}
	}
	return infos(ctx, files)
}
