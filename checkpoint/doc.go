// Package checkpoint keeps snapshots of a workspace's files outside the
// user's repository, so that an agent's changes can be previewed and undone
// (rewind with files) on any branch of a session tree.
//
// The store is content-addressed: every file's bytes are a blob named by
// their SHA-256, and a checkpoint is a manifest (sorted path, mode, size,
// blob hash) named by the SHA-256 of its own text, so identical workspaces
// share one manifest and unchanged files share their blobs. A stat cache
// (path -> size, mtime, mode, inode, ctime -> hash) means that a checkpoint
// of an unchanged workspace stats every file but reads and hashes none.
//
// A workspace's store lives in <root>/<workspace key>/ (0700 folders, 0600
// files): objects/, manifests/, refs/ (which sessions reference which
// manifests, for pruning), statcache and, during a restore, journal.json.
// Nothing is ever written under the workspace except by Restore, and
// nothing is ever read from or written to its .git/.
//
// It imports no other pi-lsp package.
package checkpoint
