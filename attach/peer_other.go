//go:build !linux

package attach

import "net"

// peerUID is not read here: the socket's 0600 mode is the check.
func peerUID(net.Conn) (uid int, known bool, err error) { return 0, false, nil }
