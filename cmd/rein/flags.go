package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// addPeerFlags adds the flags users know from other agent command lines
// to a command that runs the agent.
func addPeerFlags(cmd *cobra.Command, o *runOptions) {
	f := cmd.Flags()
	f.StringVar(&o.systemPrompt, "system-prompt", "", "replace rein's system prompt with this text (@FILE reads it from a file)")
	f.StringVar(&o.appendSystem, "append-system-prompt", "", "append this text to the system prompt (@FILE reads it from a file)")
	f.DurationVar(&o.requestTimeout, "request-timeout", 0, "give up on one model call after this long, retries included (e.g. 2m; 0 = no limit)")
	f.DurationVar(&o.idleTimeout, "idle-timeout", 0, "fail a model stream that sends nothing for this long; it is then retried (default 90s, or the provider's idle_timeout)")
}

// addSessionFlags adds -c/--continue and --resume to a command that
// starts a run or a chat.
func addSessionFlags(cmd *cobra.Command, o *runOptions) {
	f := cmd.Flags()
	f.BoolVarP(&o.cont, "continue", "c", false, "continue the last session of this workspace")
	f.StringVarP(&o.resume, "resume", "r", "", "continue the session with this id (or a unique prefix of it, or a file path); with no id, choose one")
}

// sessionRef is the session named by -c or --resume, "" for none.
func (o *runOptions) sessionRef() (string, error) {
	switch {
	case o.cont && o.resume != "":
		return "", errors.New("-c/--continue and --resume both name a session: give one of them")
	case o.cont:
		return "last", nil
	}
	return o.resume, nil
}

// flagText resolves a flag value that may name a file as @FILE.
func flagText(name, v string) (string, error) {
	path, ok := strings.CutPrefix(v, "@")
	if !ok {
		return v, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--%s: %w", name, err)
	}
	return string(b), nil
}

// resolveTextFlags reads the @FILE forms of the system prompt flags.
func (o *runOptions) resolveTextFlags() error {
	var err error
	if o.systemPrompt, err = flagText("system-prompt", o.systemPrompt); err != nil {
		return err
	}
	o.appendSystem, err = flagText("append-system-prompt", o.appendSystem)
	return err
}
