package testenv

import (
	"os"
	"os/exec"
)

// newNodeCommand runs a script with the machine's node, in dir.
func newNodeCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	return cmd
}
