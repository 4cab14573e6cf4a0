package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// privateTemp is made once per process, on the first confined command.
var privateTemp = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "rein-tmp-")
	if err != nil {
		return "", fmt.Errorf("sandbox: cannot make the private temporary directory: %w", err)
	}
	return dir, nil
})

// PrivateTemp returns the temporary directory that confined commands of
// this process get when their Policy names none: a directory of mode
// 0700 under os.TempDir, made on the first call and kept for the life
// of the process, so files a command leaves in /tmp are there for the
// next command of the same run and for no other program. Callers that
// want it gone at exit remove it themselves.
func PrivateTemp() (string, error) { return privateTemp() }

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
