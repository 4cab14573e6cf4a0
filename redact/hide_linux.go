package redact

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// HideEnv keeps secret-looking variables (SecretName: model keys among
// them) out of what other processes can read of this process, without a
// second process:
//
//   - it blanks their values in the kernel's record of the initial
//     environment (the memory /proc/<pid>/environ shows, which the Go
//     runtime copied at start and never reads again), so even a reader
//     allowed to open that file sees the names with empty values;
//   - it marks the process not dumpable (PR_SET_DUMPABLE 0), so processes
//     of the same user without CAP_SYS_PTRACE can neither open its
//     /proc/<pid>/environ and /proc/<pid>/mem nor attach a debugger to
//     read the keys from the heap. Programs it starts are dumpable again
//     after exec, as usual.
//
// os.Getenv and os.Environ keep the values (the process needs them for
// requests and to mask them in output); environments handed to commands
// should leave them out (FilterEnv). It does nothing when no variable
// looks secret, and failures leave things as they were: the keys were
// readable before, and the process still runs. Call it once, early in
// main; it does nothing outside Linux.
func HideEnv() {
	var names []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if SecretName(k) {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return
	}
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	_ = blankInitialEnv(names)
}

// blankInitialEnv overwrites with NUL bytes the values of the named
// variables in the process's initial environment block, between the
// env_start and env_end addresses of /proc/self/stat, through
// /proc/self/mem. Only value bytes change, so the block keeps its layout
// and every string in it stays terminated.
func blankInitialEnv(names []string) error {
	start, end, err := envBounds()
	if err != nil {
		return err
	}
	if end <= start || end-start > 16<<20 {
		return errors.New("implausible environment bounds")
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, int64(start)); err != nil {
		return err
	}
	secret := map[string]bool{}
	for _, n := range names {
		secret[n] = true
	}
	for off := 0; off < len(block); {
		n := bytes.IndexByte(block[off:], 0)
		if n < 0 {
			n = len(block) - off
		}
		entry := block[off : off+n]
		if eq := bytes.IndexByte(entry, '='); eq > 0 && secret[string(entry[:eq])] {
			value := entry[eq+1:]
			if len(value) > 0 {
				clear(value)
				if _, err := mem.WriteAt(value, int64(start)+int64(off+eq+1)); err != nil {
					return err
				}
			}
		}
		off += n + 1
	}
	return nil
}

// envBounds returns the env_start and env_end fields (50 and 51) of
// /proc/self/stat.
func envBounds() (uint64, uint64, error) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, err
	}
	// pid (comm) state ...: comm may hold spaces and parentheses, so
	// count fields from the last ')', where field 3 begins.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, errors.New("unreadable /proc/self/stat")
	}
	f := strings.Fields(string(stat[i+1:]))
	const envStart, envEnd = 50 - 3, 51 - 3
	if len(f) <= envEnd {
		return 0, 0, errors.New("/proc/self/stat lacks the environment bounds")
	}
	start, err1 := strconv.ParseUint(f[envStart], 10, 64)
	end, err2 := strconv.ParseUint(f[envEnd], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, errors.New("unreadable environment bounds")
	}
	return start, end, nil
}
