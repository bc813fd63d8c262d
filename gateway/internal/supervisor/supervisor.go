// Package supervisor runs a stdio MCP server so that no process of its
// tree outlives the program that started it, however that program ends
// (SIGKILL included) and however the tree is made (npx starting node, a
// shell's background jobs, a daemon that calls setsid to leave its
// process group).
//
// The supervisor is the starting program itself, run again
// (/proc/self/exe) with Arg as its first argument and Env=1 in its
// environment: this package's init then runs the supervisor instead of
// the program. It exists wherever the gateway runs (Caddy built with
// xcaddy, a test binary, any program that embeds the gateway), and,
// being a package with no dependencies but the standard library, its init
// runs before those of the program's heavier packages: a supervisor costs
// little memory of its own.
//
// Why a process of its own: a process cannot act after SIGKILL, so
// something that survives the program must do the killing. Pdeathsig
// reaches only a direct child (npx, not the node it starts), and the
// process group only the descendants that stay in it. The supervisor
// makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), so every
// orphan of the tree is reparented to it rather than to init: the tree is
// its descendants, whatever they do. It learns that the program is gone
// from a lifeline: a pipe whose write end only the program holds, which
// the kernel closes when the program dies by any means, so the
// supervisor's read end (descriptor 3) sees end-of-file. Cgroups would do
// the same (cgroup.kill) but need a delegated, writable cgroup, which a
// Caddy server rarely has without root. Linux only.
//
// The supervisor ends the tree (SIGTERM to every descendant, then SIGKILL
// after a grace period, until none is left) when the server exits, when
// it gets SIGTERM, SIGINT or SIGHUP, and when the lifeline ends; it then
// exits with the server's exit status (or 128 plus its signal).
package supervisor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// Arg is the first argument that makes a process a supervisor; Env
	// must be set to 1 as well, so that the program's own command line
	// can never be mistaken for it.
	Arg = "__mcp_gateway_supervise__"
	Env = "MCP_GATEWAY_SUPERVISE"
	// lifelineFD is the supervisor's descriptor of the lifeline's read end.
	lifelineFD = 3
)

// Grace periods: what a process of the tree gets between SIGTERM and
// SIGKILL once the gateway is gone or has asked the supervisor to end the
// tree, and once the server itself has ended (its leftovers).
const (
	// Grace is what the tree gets when the program is gone or asks the
	// supervisor to end it.
	Grace         = time.Second
	leftoverGrace = 200 * time.Millisecond
	// supervisorGiveUp bounds the whole cleanup; past it the supervisor
	// exits even if a process will not die (one in uninterruptible sleep).
	supervisorGiveUp = 10 * time.Second
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == Arg && os.Getenv(Env) == "1" {
		os.Exit(run(os.Args[2:]))
	}
}

// Command is the supervisor's program and arguments for a server at path
// (absolute, or relative to the directory the supervisor starts in) with
// args. The caller sets Env=1 in its environment (the supervisor removes
// it from the server's), gives it the read end of a pipe as its first
// extra file (descriptor 3) and keeps the write end open as long as it
// lives, and may run it in a process group of its own.
func Command(path string, args []string) (string, []string) {
	return "/proc/self/exe", append([]string{Arg, "--", path}, args...)
}

// run runs the server named by args ("--", path, args...) and
// returns the supervisor's exit code: the server's, or 128 plus the signal
// that ended it.
func run(args []string) int {
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "mcp gateway supervisor: usage: "+Arg+" -- <program> [<args>...]")
		return 2
	}
	path, argv := args[1], args[1:]
	syscall.CloseOnExec(lifelineFD) // the server must not hold it
	lifeline := os.NewFile(lifelineFD, "lifeline")
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintln(os.Stderr, "mcp gateway supervisor: PR_SET_CHILD_SUBREAPER:", errno)
		return 1
	}
	// The cleanup signals the process group, the supervisor included:
	// those signals, and the gateway's, are events, not the end.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, Env+"=") {
			env = append(env, kv)
		}
	}
	server, err := os.StartProcess(path, argv, &os.ProcAttr{
		Env:   env,
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		// The supervisor's own end (a bug, an operator's kill -9) ends
		// the server too.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp gateway supervisor: starting", path+":", err)
		return 127
	}
	exits := make(chan syscall.WaitStatus, 1)
	allGone := make(chan struct{})
	go reap(server.Pid, exits, allGone)
	gatewayGone := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, lifeline) // returns at end-of-file: the gateway is gone
		close(gatewayGone)
	}()

	code := 0
	grace := Grace
	select {
	case status := <-exits:
		code = exitCode(status)
		grace = leftoverGrace
	case <-gatewayGone:
	case <-signals:
	}
	endTree(grace, allGone)
	return code
}

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// reap waits for every child (the server and the orphans reparented to
// the supervisor), sends the server's status on exits, and closes allGone
// once there are no children left. A subreaper's descendants are always
// its children's descendants, so no children means no tree.
func reap(serverPid int, exits chan<- syscall.WaitStatus, allGone chan<- struct{}) {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil: // ECHILD
			close(allGone)
			return
		case pid == serverPid:
			exits <- status
		}
	}
}

func exitCode(status syscall.WaitStatus) int {
	if status.Signaled() {
		return 128 + int(status.Signal())
	}
	return status.ExitStatus()
}

// endTree ends every descendant: SIGTERM, then, after grace, SIGKILL until
// none is left (or supervisorGiveUp has passed).
func endTree(grace time.Duration, allGone <-chan struct{}) {
	signalTree(syscall.SIGTERM)
	select {
	case <-allGone:
		return
	case <-time.After(grace):
	}
	giveUp := time.After(supervisorGiveUp)
	for {
		signalTree(syscall.SIGKILL)
		select {
		case <-allGone:
			return
		case <-giveUp:
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// signalTree sends sig to every descendant of the supervisor.
func signalTree(sig syscall.Signal) {
	for _, pid := range descendants(os.Getpid()) {
		_ = syscall.Kill(pid, sig)
	}
}

// descendants lists the processes below root, from /proc.
func descendants(root int) []int {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(b)
		end := strings.LastIndexByte(s, ')')
		if end < 0 {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 2 {
			continue
		}
		pidText, _, _ := strings.Cut(s, " ")
		pid, err1 := strconv.Atoi(pidText)
		ppid, err2 := strconv.Atoi(fields[1])
		if err1 == nil && err2 == nil {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
