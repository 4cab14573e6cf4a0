package sandbox

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// auditArch is the seccomp architecture of this build, 0 where no
// filter is built.
func auditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// noUnixFilter returns the seccomp program used with the network off:
// creating an AF_UNIX socket fails with EACCES, so no path socket
// anywhere (a Docker or ssh-agent socket) can be reached — a new network
// namespace cuts off TCP and abstract sockets but not sockets named by a
// file. io_uring, which can open sockets without the socket system call,
// is refused too, and so is every system call of another architecture
// (the x32 and 32-bit entry points), which the filter cannot check.
// socketpair stays allowed: it reaches nothing outside the process. It
// returns nil where no filter is built for this architecture.
func noUnixFilter() []unix.SockFilter {
	arch := auditArch()
	if arch == 0 {
		return nil
	}
	const (
		ld    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		deny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
		allow = unix.SECCOMP_RET_ALLOW
	)
	// seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low half on
	// little-endian machines, which both built architectures are).
	return []unix.SockFilter{
		/* 0 */ {Code: ld, K: 4},
		/* 1 */ {Code: jeq, K: arch, Jt: 1, Jf: 0},
		/* 2 */ {Code: ret, K: deny},
		/* 3 */ {Code: ld, K: 0},
		/* 4 */ {Code: jge, K: 0x40000000, Jt: 5, Jf: 0}, // x32 → 10
		/* 5 */ {Code: jeq, K: unix.SYS_IO_URING_SETUP, Jt: 4, Jf: 0},
		/* 6 */ {Code: jeq, K: unix.SYS_SOCKET, Jt: 0, Jf: 2},
		/* 7 */ {Code: ld, K: 16},
		/* 8 */ {Code: jeq, K: unix.AF_UNIX, Jt: 1, Jf: 0},
		/* 9 */ {Code: ret, K: allow},
		/* 10 */ {Code: ret, K: deny},
	}
}

// seccompFile returns a pipe holding the compiled filter for bwrap's
// --seccomp, or nil where there is none. The parent's copy is closed
// when the *os.File is collected.
func seccompFile() (*os.File, error) {
	prog := noUnixFilter()
	if prog == nil {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.NativeEndian, prog); err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	defer w.Close()
	if _, err := w.Write(buf.Bytes()); err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: writing the seccomp filter: %w", err)
	}
	return r, nil
}

// installNoUnix applies the filter to every thread of this process (the
// helper), so the command it starts inherits it. no_new_privs must be
// set already (Landlock sets it).
func installNoUnix() error {
	prog := noUnixFilter()
	if prog == nil {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fp)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return errno
	}
	return nil
}
