package coding

import (
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/tool/builtin"
)

// CommandSandbox is how the commands rein runs itself in workspace on a
// task's behalf (verify commands, contract commands, long mode's set-up
// script) are confined: bash's sandbox policy from the workspace's
// .rein/security.json — what loosens it (the sandbox off, more writable
// directories, secret variables let through) only when the user trusts
// that file's content (see WorkspaceTrust), what tightens it always —
// and bash's environment, without model keys and secret-looking
// variables. REIN_SANDBOX overrides the mode as for bash. A malformed
// file is a *ConfigError naming it.
func CommandSandbox(o Options, workspace string) (*sandbox.Policy, []string, error) {
	o.defaults()
	trusted := false
	if st, err := WorkspaceTrust(o, workspace); err == nil {
		trusted = st.Trusted(SecurityFile)
	}
	sec, err := readSecurity(o.Getenv, workspace, trusted)
	if err != nil {
		return nil, nil, err
	}
	env, _ := redact.FilterEnv(ChildEnv(o, workspace), sec.EnvAllow)
	return sec.policy(builtin.Workspace{Root: workspace}), env, nil
}
