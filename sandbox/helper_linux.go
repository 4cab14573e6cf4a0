package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// HelperArg is the first argument that makes RunHelper act as the
// sandbox helper. Programs that use Wrap without bwrap must call
// RunHelper at the very start of main (and of TestMain in tests).
const HelperArg = "__rein-sandbox-helper"

// helperSpec is what Wrap passes to the helper.
type helperSpec struct {
	Confine bool `json:"confine"`
	// Exec makes the helper confine itself and execute the command in
	// its place. The outer helper, which stays unconfined, starts such an
	// inner one: Landlock's signal scope would otherwise stop a confined
	// helper from killing what the command leaves behind (a process in a
	// domain cannot signal one outside it, and the Go runtime's threads
	// need not share one domain).
	Exec      bool     `json:"exec,omitempty"`
	Writable  []string `json:"writable,omitempty"`
	NoNetwork bool     `json:"no_network,omitempty"`
	// Hidden are the paths the command may not read (see readRules).
	Hidden []string `json:"hidden,omitempty"`
}

func wrapHelper(cmd *exec.Cmd, p Policy, confine bool) error {
	helper := p.Helper
	if helper == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("sandbox: cannot find the helper program: %w", err)
		}
		helper = exe
	}
	w := p.writable()
	if confine && p.TempDir != "" {
		w = append(w, p.TempDir)
	}
	hs := helperSpec{Confine: confine, Writable: w, NoNetwork: p.NoNetwork}
	if confine {
		hs.Hidden = p.hidden()
	}
	spec, err := json.Marshal(hs)
	if err != nil {
		return err
	}
	args := []string{helper, HelperArg, string(spec), "--", cmd.Path}
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path, cmd.Args = helper, args
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// SIGTERM, not SIGKILL: the helper kills what the command left
	// behind before it exits.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	return nil
}

// RunHelper returns at once unless os.Args[1] is HelperArg; then it
// acts as the sandbox helper and exits the process with the command's
// status. The helper applies Landlock to itself (when asked), becomes a
// child subreaper, runs the command in its own process group, and when
// the command ends, or the helper receives SIGTERM, SIGINT or SIGHUP (or
// its parent dies), kills every process left beneath it.
func RunHelper() {
	helperRegistered.Store(true)
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	os.Exit(helperMain(os.Args[2:]))
}

func helperMain(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "sandbox helper: usage: "+HelperArg+" SPEC -- COMMAND [ARG...]")
		return 126
	}
	var spec helperSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox helper: bad spec:", err)
		return 126
	}
	argv := args[2:]
	if spec.Exec {
		return confineAndExec(spec, argv)
	}
	// rein started the helper with SIGTERM as its parent-death signal
	// (Go checks at fork that rein was still there); parent tells, when
	// a signal comes, whether it is that one.
	parent := os.Getppid()
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0)
	if os.Getppid() != parent {
		return 137 // rein died just now
	}
	if spec.Confine {
		// The command runs under an inner helper that confines itself and
		// executes it; this one stays unconfined, able to kill it all.
		inner := spec
		inner.Exec = true
		data, err := json.Marshal(inner)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sandbox helper:", err)
			return 126
		}
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, "sandbox helper:", err)
			return 126
		}
		argv = append([]string{exe, HelperArg, string(data), "--"}, argv...)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox helper: cannot become a subreaper:", err)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandbox helper:", err)
		return 127
	}
	child := exec.Command(path, argv[1:]...)
	child.Args[0] = argv[0]
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox helper:", err)
		return 126
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case s := <-sigs:
		if os.Getppid() != parent {
			// rein is gone (this is the parent-death signal): nobody
			// reads the output, so nothing gets a grace period that it
			// could use to write late.
			break
		}
		_ = syscall.Kill(child.Process.Pid, s.(syscall.Signal))
		select {
		case werr = <-done:
		case <-time.After(2 * time.Second):
		}
	}
	reapAll()
	if werr == nil {
		return 0
	}
	if ee, ok := werr.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// As a shell reports it: 128 + the signal's number.
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 126
}

// confineAndExec applies Landlock (and, with the network off, the
// seccomp filter) to this process and executes the command in its place;
// it returns only on failure.
func confineAndExec(spec helperSpec, argv []string) int {
	if spec.Confine {
		if err := restrict(spec); err != nil {
			fmt.Fprintln(os.Stderr, "sandbox helper: cannot apply Landlock:", err)
			return 126
		}
		if spec.NoNetwork {
			if err := installNoUnix(); err != nil {
				fmt.Fprintln(os.Stderr, "sandbox helper: cannot apply the seccomp filter:", err)
				return 126
			}
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandbox helper:", err)
		return 127
	}
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintln(os.Stderr, "sandbox helper:", err)
	return 126
}

// reapAll kills every process beneath the helper: as a subreaper it
// inherits the orphans, so it kills its children (which hands it their
// children) until none are left.
func reapAll() {
	self := os.Getpid()
	for range 200 {
		kids := childrenOf(self)
		for _, k := range kids {
			_ = syscall.Kill(k, syscall.SIGKILL)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
		if len(kids) == 0 {
			var ws syscall.WaitStatus
			if _, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); err == syscall.ECHILD {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// childrenOf lists the processes whose parent is pid, from the children
// files of its threads (a child belongs to the thread that forked it, or
// to the main thread once reparented).
func childrenOf(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		data, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// restrict applies the Landlock rules of spec to the helper (and so to
// everything it starts).
func restrict(spec helperSpec) error {
	rules := append(readRules(spec.Hidden),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty").IgnoreIfMissing())
	if len(spec.Writable) > 0 {
		rules = append(rules, landlock.RWDirs(spec.Writable...).IgnoreIfMissing())
	}
	cfg := landlock.V7.BestEffort()
	if spec.NoNetwork {
		return cfg.Restrict(rules...)
	}
	if err := cfg.RestrictPaths(rules...); err != nil {
		return err
	}
	return cfg.RestrictScoped()
}
