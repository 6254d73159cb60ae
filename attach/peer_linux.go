//go:build linux

package attach

import (
	"errors"
	"net"
	"syscall"
)

// peerUID reads the uid of a unix socket's peer with SO_PEERCRED.
func peerUID(nc net.Conn) (uid int, known bool, err error) {
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return 0, false, errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, false, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return 0, false, err
	}
	if cerr != nil {
		return 0, false, cerr
	}
	return int(cred.Uid), true, nil
}
