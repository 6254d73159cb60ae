package session

import "syscall"

// mapFlags maps the sidecar with its pages populated in the one mmap call:
// a reopen reads all of it at once, and populating it up front costs less
// than a fault at each page's first touch.
const mapFlags = syscall.MAP_SHARED | syscall.MAP_POPULATE
