// Package session stores pi-lsp conversations as append-only trees in JSONL
// files that are byte-compatible with pi's v3 session format
// (@mariozechner/pi-coding-agent 0.73.1, docs/session-format.md).
//
// A session file holds one header line followed by one entry per line. Every
// entry has an 8-hex-char id and a parentId, so the file is a tree; the
// "leaf" is the current position and the branch from the root to the leaf is
// the conversation the model sees (BuildContext).
//
// The package is built for large files: Open scans the file once and keeps
// only a compact index (id, parent, type, byte offset and length of each
// line). Entries are decoded from the file on demand, so opening a 133 MB
// session costs a few megabytes of memory rather than the whole file decoded.
//
// Guarantees:
//   - Writes are append-only and every append is fsynced before it returns.
//   - A torn or corrupt line (a crash mid-write) is skipped with a warning and
//     never fatal; later appends start on a fresh line and parent onto the
//     last good entry, so no good entry is ever lost.
//   - Unknown entry types and unknown fields survive: entries keep their raw
//     JSON line, and fork/clone copy raw lines.
//   - Sessions written by pi (versions 1, 2 and 3) load, migrated in memory
//     exactly as pi's migrateSessionEntries does; sessions written here open
//     in pi.
//   - One writer at a time: a writable session holds a gofrs/flock lock on
//     the session file itself, so the lock is keyed by device and inode (a
//     symlink or hard link finds it); it is taken only after the header was
//     validated. A second writer gets a *LockedError naming the owner's pid.
//   - A file whose version is above 3 is opened read-only: appends fail
//     with a *FormatError.
//
// session imports no other pi-lsp package except llm (message types).
package session
