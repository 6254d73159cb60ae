//go:build !unix

package harness

import "os"

// fileOwner is not known on this platform.
func fileOwner(os.FileInfo) (int, bool) { return 0, false }
