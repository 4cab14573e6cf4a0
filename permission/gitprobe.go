package permission

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The blocker asks git whether a tree has uncommitted changes. The
// repository may have been made by the model a moment ago, so nothing
// its configuration names may run: git reads the repository's config
// only to learn which keys to override, then runs status with every key
// that can start a program (core.fsmonitor, filters, diff drivers,
// pagers, ssh commands, hooks …) blanked through GIT_CONFIG_COUNT, with
// no system config, no optional locks (so no index write and no
// post-index-change hook) and submodules ignored (their config is not
// read).

// gitProbeTimeout bounds one git probe.
const gitProbeTimeout = 10 * time.Second

// gitSafeConfig are overrides set on every probe.
var gitSafeConfig = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.untrackedCache", "false"},
	{"core.sshCommand", ""},
	{"core.pager", "cat"},
	{"core.editor", "true"},
	{"core.askPass", ""},
	{"core.gitProxy", ""},
	{"diff.external", ""},
	{"status.submoduleSummary", "false"},
	{"submodule.recurse", "false"},
	{"protocol.allow", "never"},
}

// execKey reports whether a config key (as git config -l prints it:
// section and name lower-cased) can name a program or a hook.
func execKey(k string) bool {
	k = strings.ToLower(k)
	sec, _, _ := strings.Cut(k, ".")
	name := k[strings.LastIndexByte(k, '.')+1:]
	switch sec {
	case "filter", "alias", "pager", "credential", "gpg", "sendemail", "hook":
		return true
	}
	switch name {
	case "command", "textconv", "driver", "process", "clean", "smudge", "cmd", "program", "helper",
		"fsmonitor", "sshcommand", "pager", "editor", "askpass", "gitproxy", "hookspath", "external", "packobjectshook", "receivepack", "uploadpack":
		return true
	}
	return false
}

// gitEnv is the environment of a probe: the caller's, without any GIT_*
// variable (GIT_DIR, GIT_EXEC_PATH, GIT_CONFIG_* …), with system config
// off, no prompts, no optional locks, and the given overrides.
func gitEnv(over [][2]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0",
		"GIT_NO_REPLACE_OBJECTS=1", "GIT_PAGER=cat", "PAGER=cat", "GIT_EDITOR=true", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_SSH=", "GIT_SSH_COMMAND=", "LC_ALL=C",
		fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(over)))
	for i, kv := range over {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return env
}

// runGit runs git in dir with the probe environment.
func runGit(ctx context.Context, dir string, over [][2]string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-optional-locks", "--no-replace-objects"}, args...)...)
	cmd.Dir = dir
	cmd.Env = gitEnv(over)
	cmd.Stdin = nil
	return cmd.Output()
}

// dirty reports whether the repository at dir has uncommitted changes
// to tracked files, without running anything the repository's
// configuration names. When git cannot tell, it says yes.
func dirty(dir string) bool {
	if dir == "" {
		return true // the directory is not known before the command runs
	}
	ctx := context.Background()
	over := append([][2]string(nil), gitSafeConfig...)
	// Reading the config starts no program; it tells which keys to blank.
	list, err := runGit(ctx, dir, over, "config", "--list", "-z")
	if err != nil {
		return true
	}
	for _, entry := range bytes.Split(list, []byte{0}) {
		key, _, _ := bytes.Cut(entry, []byte{'\n'})
		k := string(key)
		if k == "" || !execKey(k) {
			continue
		}
		if strings.ContainsAny(k, "=\n") {
			return true // cannot be overridden reliably: do not run status
		}
		over = append(over, [2]string{k, ""})
		if strings.HasPrefix(strings.ToLower(k), "filter.") {
			sub := k[:strings.LastIndexByte(k, '.')]
			over = append(over, [2]string{sub + ".required", "false"})
		}
	}
	out, err := runGit(ctx, dir, over, "status", "--porcelain", "--untracked-files=no", "--ignore-submodules=all", "--no-renames")
	return err != nil || len(bytes.TrimSpace(out)) > 0
}
