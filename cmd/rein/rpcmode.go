package main

import (
	"context"
	"fmt"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/rpc"
)

// runRPCMode serves pi's RPC protocol on standard input and output
// (rein --mode rpc): commands in, responses and events out, one JSON
// object a line. ref is the session -c or --resume names.
func runRPCMode(ctx context.Context, e *env, o *runOptions, mode, ref string, args []string) error {
	if mode != "rpc" {
		return &exitError{code: 2, err: fmt.Errorf("unknown mode %q: rein --mode rpc is the one mode (pi's RPC protocol); for JSON output use rein -p --output-format stream-json", mode)}
	}
	if len(args) > 0 {
		return &exitError{code: 2, err: fmt.Errorf("rein --mode rpc takes its prompts on standard input, not %q", args[0])}
	}
	if err := o.check(); err != nil {
		return &exitError{code: 2, err: err}
	}
	o.answerable, o.frontend = true, "rpc"
	path := ""
	if ref != "" {
		var err error
		if path, err = coding.FindSession(o.workdir, ref); err != nil {
			return &exitError{code: 2, err: err}
		}
	}
	var script llm.Provider // --model faux: one script across the sessions
	open := func(ctx context.Context, session string) (*coding.Agent, error) {
		co, err := o.options(e, session, o.noSession)
		if err != nil {
			return nil, err
		}
		if script == nil {
			script = co.Provider
		} else if co.Provider != nil {
			co.Provider = script
		}
		// Approval requests go to the client as dialogs (the default
		// mode is the settings', else auto_read); no trust question is
		// asked on the terminal.
		co.Terminal, co.ConfirmTrust = false, nil
		return coding.Open(ctx, co)
	}
	if err := rpc.Serve(ctx, e.stdin, e.stdout, rpc.Options{Open: open, Session: path}); err != nil {
		return &exitError{code: 1, err: err}
	}
	return nil
}
