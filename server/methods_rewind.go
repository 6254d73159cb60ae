package server

import (
	"context"
	"github.com/pi-lsp/pi-lsp/rpc"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// Rewind with files: session/rewindPreview, session/restoreFiles, and the
// "files" option that session/navigate, session/fork and session/clone
// share (filesOption).

func (a *agent) registerRewind(s *rpc.Server) {
	s.Register("session/rewindPreview", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.RewindTargetParams) (any, error) {
		if p.TargetID == "" {
			return nil, rpc.ErrInvalidParams(`"targetId" is required`)
		}
		changes, err := h.RewindPreview(ctx, p.TargetID)
		if err != nil {
			return nil, err
		}
		out := protocol.RewindPreviewResult{Files: make([]protocol.RewindFileChange, 0, len(changes))}
		for _, c := range changes {
			out.Files = append(out.Files, protocol.RewindFileChange{Path: c.Path, Change: c.Change, Diff: c.Diff})
		}
		return out, nil
	}))
	s.Register("session/restoreFiles", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.RewindTargetParams) (any, error) {
		if p.TargetID == "" {
			return nil, rpc.ErrInvalidParams(`"targetId" is required`)
		}
		r, err := h.RestoreFiles(ctx, p.TargetID)
		if err != nil {
			return nil, err
		}
		return protocol.RestoreFilesResult{Files: *toFilesRestored(&r)}, nil
	}))
}

// filesOption reads the "files" option: true for "restore".
func filesOption(f protocol.FilesOption) (bool, error) {
	switch f {
	case "", protocol.FilesKeep:
		return false, nil
	case protocol.FilesRestore:
		return true, nil
	}
	return false, rpc.ErrInvalidParams(`"files" must be "keep" or "restore"`)
}

func toFilesRestored(r *harness.FilesResult) *protocol.FilesRestored {
	if r == nil {
		return nil
	}
	out := &protocol.FilesRestored{Restored: r.Restored, Deleted: r.Deleted, Paths: r.Paths}
	for _, f := range r.Failed {
		out.Failed = append(out.Failed, protocol.FileFailure{Path: f.Path, Error: f.Err})
	}
	return out
}

func (a *agent) navigate(ctx context.Context, h *harness.Harness, p protocol.NavigateParams) (any, error) {
	if p.TargetID == "" {
		return nil, rpc.ErrInvalidParams(`"targetId" is required`)
	}
	restore, err := filesOption(p.Files)
	if err != nil {
		return nil, err
	}
	r, err := h.Navigate(ctx, p.TargetID, harness.NavigateOptions{Summarize: p.Summarize, CustomInstructions: p.CustomInstructions, Label: p.Label, RestoreFiles: restore})
	if err != nil {
		return nil, err
	}
	out := toNavigateResult(r)
	out.Files = toFilesRestored(r.Files)
	return out, nil
}

func (a *agent) fork(ctx context.Context, h *harness.Harness, p protocol.ForkParams) (any, error) {
	if p.EntryID == "" {
		return nil, rpc.ErrInvalidParams(`"entryId" is required`)
	}
	restore, err := filesOption(p.Files)
	if err != nil {
		return nil, err
	}
	info, text, files, err := h.ForkFiles(ctx, p.EntryID, p.At, restore)
	return sessionResult{SessionID: info.ID, Path: info.Path, EditorText: text, Files: toFilesRestored(files)}, err
}

func (a *agent) clone(ctx context.Context, h *harness.Harness, p protocol.CloneParams) (any, error) {
	restore, err := filesOption(p.Files)
	if err != nil {
		return nil, err
	}
	info, files, err := h.CloneFiles(ctx, restore)
	return sessionResult{SessionID: info.ID, Path: info.Path, Files: toFilesRestored(files)}, err
}
