package attach

import (
	"fmt"
	"net"
	"os"
)

// CheckPeerConn refuses a socket peer run by another user (SO_PEERCRED
// where the platform has it; the socket's 0600 mode stops others at
// connect anyway).
func CheckPeerConn(nc net.Conn) error {
	uid, known, err := peerUID(nc)
	if err != nil {
		return fmt.Errorf("attach: reading the peer's credentials: %w", err)
	}
	if !known {
		return nil
	}
	return checkPeer(uid, os.Getuid())
}

// checkPeer refuses a peer whose uid is not ours.
func checkPeer(peerUID, ownUID int) error {
	if peerUID != ownUID {
		return fmt.Errorf("attach: refused a connection from uid %d: only uid %d may attach to its sessions", peerUID, ownUID)
	}
	return nil
}
