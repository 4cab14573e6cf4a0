package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// privateTemp is the process's private temporary directory, made on the
// first confined command and removed by RemovePrivateTemp.
var privateTemp struct {
	mu  sync.Mutex
	dir string
}

// PrivateTemp returns the temporary directory that confined commands of
// this process get when their Policy names none: a directory of mode
// 0700 under os.TempDir, made on the first call and kept until
// RemovePrivateTemp, so files a command leaves in /tmp are there for the
// next command of the same run and for no other program.
func PrivateTemp() (string, error) {
	privateTemp.mu.Lock()
	defer privateTemp.mu.Unlock()
	if privateTemp.dir == "" {
		dir, err := os.MkdirTemp("", "rein-tmp-")
		if err != nil {
			return "", fmt.Errorf("sandbox: cannot make the private temporary directory: %w", err)
		}
		privateTemp.dir = dir
	}
	return privateTemp.dir, nil
}

// RemovePrivateTemp removes the private temporary directory and what
// commands left in it, if PrivateTemp made one; a later confined command
// gets a new one. A program calls it when it no longer runs confined
// commands — at exit — so that each run does not leave a directory
// behind in /tmp.
func RemovePrivateTemp() error {
	privateTemp.mu.Lock()
	defer privateTemp.mu.Unlock()
	if privateTemp.dir == "" {
		return nil
	}
	err := os.RemoveAll(privateTemp.dir)
	privateTemp.dir = ""
	return err
}

// setEnv sets key=value in cmd's environment (the process's own when
// cmd.Env is nil), replacing earlier values.
func setEnv(cmd *exec.Cmd, key, value string) {
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	cmd.Env = append(out, key+"="+value)
}
