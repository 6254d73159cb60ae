package protocol

// Rewind with files: session/rewindPreview, session/restoreFiles and the
// "files" option of session/navigate, session/fork and session/clone.

// FilesOption is the "files" option of session/navigate, session/fork and
// session/clone: "keep" (the default) changes no file; "restore" makes
// the workspace's files what they were at the target.
type FilesOption string

// Values of FilesOption.
const (
	FilesKeep    FilesOption = "keep"
	FilesRestore FilesOption = "restore"
)

// NavigateParams are session/navigate's params.
type NavigateParams struct {
	TargetID           string      `json:"targetId"`
	Summarize          bool        `json:"summarize,omitempty"`
	CustomInstructions string      `json:"customInstructions,omitempty"`
	Label              string      `json:"label,omitempty"`
	Files              FilesOption `json:"files,omitempty"`
}

// ForkParams are session/fork's params.
type ForkParams struct {
	EntryID string      `json:"entryId"`
	At      bool        `json:"at,omitempty"`
	Files   FilesOption `json:"files,omitempty"`
}

// CloneParams are session/clone's params.
type CloneParams struct {
	Files FilesOption `json:"files,omitempty"`
}

// RewindTargetParams are the params of session/rewindPreview and
// session/restoreFiles: the entry whose files are wanted.
type RewindTargetParams struct {
	TargetID string `json:"targetId"`
}

// RewindFileChange is one file a restore would change.
type RewindFileChange struct {
	// Path is relative to the workspace root, slash-separated.
	Path string `json:"path"`
	// Change is what a restore would do: modified|added|deleted.
	Change string `json:"change"`
	// Diff is a unified diff from the current file to the restored one;
	// empty for a binary file.
	Diff string `json:"diff"`
}

// RewindPreviewResult is the result of session/rewindPreview.
type RewindPreviewResult struct {
	Files []RewindFileChange `json:"files"`
}

// FileFailure is a file a restore could not write.
type FileFailure struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// FilesRestored says what a restore did to the files.
type FilesRestored struct {
	Restored int `json:"restored"`
	Deleted  int `json:"deleted"`
	// Paths are the files changed (for editors to reload their buffers).
	Paths  []string      `json:"paths,omitempty"`
	Failed []FileFailure `json:"failed,omitempty"`
}

// RestoreFilesResult is the result of session/restoreFiles.
type RestoreFilesResult struct {
	Files FilesRestored `json:"files"`
}
