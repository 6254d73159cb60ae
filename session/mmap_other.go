//go:build !linux

package session

import "syscall"

// mapFlags maps the sidecar shared and read-only.
const mapFlags = syscall.MAP_SHARED
