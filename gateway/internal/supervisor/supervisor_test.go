package supervisor

import (
	"os"
	"os/exec"
	"testing"
)

// TestRunUsage: a supervisor started without a program says how it is
// used and exits non-zero.
func TestRunUsage(t *testing.T) {
	if code := run(nil); code != 2 {
		t.Errorf("run(nil) = %d, want 2", code)
	}
}

// TestSupervisorRunsTheServer: the supervisor runs its server with the
// environment it was given, minus Env, and exits with the server's
// status.
func TestSupervisorRunsTheServer(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	path, args := Command("/bin/sh", []string{"-c", `test -z "$` + Env + `" && test "$KEPT" = yes && exit 7`})
	cmd := exec.Command(path, args...)
	cmd.Env = []string{Env + "=1", "KEPT=yes"}
	cmd.ExtraFiles = []*os.File{r}
	err = cmd.Run()
	r.Close()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Errorf("the supervisor exited with %v, want the server's 7", err)
	}
}
