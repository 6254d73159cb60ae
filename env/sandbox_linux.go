//go:build linux

package env

import (
	"fmt"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

func landlockAvailable() (bool, string) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return false, fmt.Sprintf("the kernel has no Landlock (%v)", err)
	}
	if v < 1 {
		return false, "the kernel has no Landlock"
	}
	return true, ""
}

// devWritable are the device files every sandboxed command may write.
var devWritable = []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/full"}

// SandboxExec is the body of the helper subcommand: it parses the policy,
// restricts the process with Landlock (reads and execution stay allowed
// everywhere; writes only where the policy says; TCP only without
// NoNetwork) and execs the command, which inherits the restriction. It
// returns only on failure.
func SandboxExec(args []string, environ []string) error {
	p, argv, err := ParseSandboxArgs(args)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devWritable...).IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts").IgnoreIfMissing(),
	}
	if p.Mode == SandboxWorkspaceWrite {
		rules = append(rules, landlock.RWDirs(p.Writable...).IgnoreIfMissing().WithRefer())
	}
	cfg := landlock.V11.BestEffort()
	if err := cfg.RestrictPaths(rules...); err != nil {
		return fmt.Errorf("sandbox: landlock: %w", err)
	}
	if p.NoNetwork {
		// No port is allowed: every TCP bind and connect (and UDP, from
		// ABI 10) is denied on kernels with Landlock ABI 4 or later.
		if err := cfg.RestrictNet(); err != nil {
			return fmt.Errorf("sandbox: landlock network: %w", err)
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return fmt.Errorf("sandbox: exec %s: %w", path, syscall.Exec(path, argv, environ))
}
