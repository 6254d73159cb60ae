//go:build !linux

package env

import "errors"

func landlockAvailable() (bool, string) {
	return false, "Landlock is a Linux feature"
}

// SandboxExec is the body of the helper subcommand; without Landlock it
// refuses.
func SandboxExec(args []string, environ []string) error {
	return errors.New("sandbox: Landlock is a Linux feature")
}
