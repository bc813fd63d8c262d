package gateway

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdUpstreamEnv makes the test binary a process that only holds a
// stdio upstream (its Connection, as JSON), says "ready" on stdout once
// the upstream is, and waits to be killed: a gateway to SIGKILL.
const holdUpstreamEnv = "GATEWAY_TEST_HOLD_UPSTREAM"

func holdUpstream(conn string) int {
	var c Connection
	if err := json.Unmarshal([]byte(conn), &c); err != nil {
		fmt.Println("bad connection:", err)
		return 2
	}
	u := NewUpstream(c, UpstreamOptions{Discovery: true})
	<-u.Started()
	fmt.Println("ready", u.Status().State)
	select {}
}

// processesWithEnv lists the processes whose environment holds entry.
func processesWithEnv(entry string) []int {
	var pids []int
	environs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, path := range environs {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, e := range strings.Split(string(b), "\x00") {
			if e == entry {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// treeUpstream is a stdio upstream whose server (this test binary) runs
// under a shell that first starts a background job in its process group
// and a daemon in a session of its own; every process of it carries
// marker in its environment.
func treeUpstream(t *testing.T, marker string) Connection {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Connection{
		Command: "sh",
		Args:    []string{"-c", `sleep 1000 & setsid sleep 1001 & exec "$0" -test.run='^$'`, exe},
		Env:     map[string]string{stdioServerEnv: "1", "TREE_MARKER": marker},
	}
}

// awaitNone waits up to 5s for no process to carry marker.
func awaitNone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := processesWithEnv("TREE_MARKER=" + marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var desc []string
			for _, pid := range left {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				desc = append(desc, fmt.Sprintf("%d %q", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes of the upstream's tree outlived it: %s", strings.Join(desc, "; "))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestStdioTreeEndsWhenTheGatewayIsKilled: SIGKILL of the process that
// runs a stdio upstream ends, within seconds, every process of the
// upstream's tree: the server, a background job of its shell, and a
// daemon that left the process group with setsid.
func TestStdioTreeEndsWhenTheGatewayIsKilled(t *testing.T) {
	marker := rand.Text()
	conn, _ := json.Marshal(treeUpstream(t, marker))
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), holdUpstreamEnv+"="+string(conn))
	stdout, _ := holder.StdoutPipe()
	holder.Stderr = os.Stderr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "ready ready" {
		t.Fatalf("the holder says %q", line)
	}
	// The server, sleep and the setsid sleep (and the supervisor).
	if n := len(processesWithEnv("TREE_MARKER=" + marker)); n < 3 {
		t.Fatalf("%d processes of the upstream's tree, want at least 3", n)
	}
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	awaitNone(t, marker)
}

// TestStdioTreeEndsWithItsUpstream: closing a stdio upstream ends its
// whole tree too, not only the server.
func TestStdioTreeEndsWithItsUpstream(t *testing.T) {
	marker := rand.Text()
	u := NewUpstream(treeUpstream(t, marker), UpstreamOptions{Discovery: true})
	<-u.Started()
	if st := u.Status(); st.State != StateReady {
		t.Fatalf("state %v: %v", st.State, st.LastError)
	}
	if n := len(processesWithEnv("TREE_MARKER=" + marker)); n < 3 {
		t.Fatalf("%d processes of the upstream's tree, want at least 3", n)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	awaitNone(t, marker)
}
