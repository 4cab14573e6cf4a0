package coding

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
	"github.com/reinhq/rein/work"
)

// workState is the agent's work items and contract (see package work
// and docs/long-horizon.md).
type workState struct {
	ledger   *work.Ledger
	verifier *work.Verifier // nil without predicates
	contract *work.Contract // nil without a contract file
	cmd      work.CommandOptions
	h        *harness.Harness // set by attach
	agent    string           // the agent the tools act for ("" for the user's)
}

// workSetup reads the contract (Options.Contract, else
// .rein/contract.json when present) and the --verify commands, and
// restores the work items of sess. A malformed contract is a
// *work.ContractError naming the file and line: nothing starts.
func (s *setup) workSetup(ctx context.Context, sess *session.Session) (*workState, error) {
	w := &workState{}
	var list work.List
	if sess != nil {
		var err error
		if list, err = work.Decode(sess.WorkItems()); err != nil {
			s.o.warnf("warning: the session's work items cannot be read (%v); starting with none", err)
			list = nil
		}
	}
	if c := s.o.child; c != nil {
		// A sub-agent works on its root agent's list, as an agent of its
		// own (one item in progress each), and checks no contract: the
		// root's run does.
		root := c.parent.root()
		w.ledger, w.agent, w.cmd = root.s.work.ledger, c.spec.ID, root.s.work.cmd
		return w, nil
	}
	bash := s.bashOptions(nil)
	w.cmd = work.CommandOptions{Dir: s.ws.Root, Sandbox: bash.Sandbox, Env: bash.BaseEnv, Hasher: &work.TreeHasher{}}
	w.ledger = work.NewLedger(list, work.LedgerOptions{Persist: w.persist, Gate: w.gate})
	s.volatile = func(prompt.Turn) string { return w.ledger.Volatile() }

	c, err := work.FindContract(s.ws.Root, s.o.Contract)
	if err != nil {
		return nil, err
	}
	w.contract = c
	var preds []work.Predicate
	if c != nil {
		preds = append(preds, c.Predicates...)
	}
	for _, v := range s.o.Verify {
		p, err := work.CommandPredicate(v)
		if err != nil {
			return nil, err
		}
		preds = append(preds, p)
	}
	if len(preds) > 0 {
		w.verifier, err = work.NewVerifier(ctx, work.VerifierOptions{Predicates: preds, Command: w.cmd, Ledger: w.ledger, Record: w.record})
		if err != nil {
			return nil, err
		}
		if sess != nil {
			// Evidence logged before (a resumed session, a crash) counts
			// while its tree is the current one.
			w.verifier.Restore(sess.Entries())
		}
	}
	return w, nil
}

func (w *workState) persist(e session.Entry) error {
	if w.h == nil {
		return fmt.Errorf("the agent is not open")
	}
	return w.h.AppendEntry(e)
}

func (w *workState) record(e session.Entry) error { return w.persist(e) }

// gate runs an item's verify commands before it may be completed; each
// run is recorded as a verification entry.
func (w *workState) gate(ctx context.Context, it work.Item) error {
	for _, c := range it.Verify {
		ev, err := work.RunCommand(ctx, w.cmd, c)
		if err != nil {
			return err
		}
		if data, jerr := json.Marshal(ev); jerr == nil {
			_ = w.record(session.Entry{Type: session.TypeCustom, Kind: work.EvidenceKind, Data: data})
		}
		if !ev.Passed(0) {
			out := strings.TrimSpace(ev.Output)
			if len(out) > 2000 {
				out = "…" + out[len(out)-2000:]
			}
			return fmt.Errorf("its verify command failed: %s\n%s", ev.Summary(), out)
		}
	}
	return nil
}

// withWorkTools adds the work-item tools to reg when tools are offered
// at all and Options.Tools wants them (see workToolWanted).
func (s *setup) withWorkTools(reg *tool.Registry, w *workState) (*tool.Registry, error) {
	if len(reg.Names()) == 0 {
		return reg, nil
	}
	tools := slices.Clone(reg.Tools())
	for _, t := range w.ledger.Tools(w.agent) {
		switch {
		case reg.Get(t.Name) != nil:
		case s.o.child != nil && !s.o.child.tools[t.Name]:
			// A sub-agent has them only when its definition allows them.
		case !s.workToolWanted(t.Name):
		default:
			tools = append(tools, t)
		}
	}
	return tool.NewRegistry(tools...)
}

// apply puts the contract into the stop policy, the open items into
// every compaction summary, and the contract guard and tool-result
// recorder into the tool chain.
func (w *workState) apply(o *harness.Options) {
	o.Pinned = w.ledger.Pinned
	if w.contract != nil {
		o.Middleware = append(o.Middleware, protect(w.cmd.Dir, w.contract.Path))
		if w.contract.MaxRetries != 0 {
			o.Stop.VerifyRetries = w.contract.MaxRetries
		}
	}
	if w.verifier != nil {
		o.Stop.Verify = w.verifier
		o.Middleware = append(o.Middleware, w.verifier.Middleware())
	}
}

// attach binds the work state to the harness: writes go to its log, a
// compaction shows the open items again, and a navigation takes the list
// of the branch moved to.
func (w *workState) attach(h *harness.Harness) {
	if w.agent != "" {
		return // a sub-agent's list is its root agent's
	}
	w.h = h
	h.Subscribe(func(_ context.Context, ev harness.Event) error {
		switch ev.Type {
		case harness.EventCompaction:
			w.ledger.Reshow()
		case harness.EventNavigate:
			// Each branch has the list as of its branch point plus its
			// own changes.
			if s, ok := h.Store().(interface{ WorkItems() json.RawMessage }); ok {
				if list, err := work.Decode(s.WorkItems()); err == nil {
					w.ledger.Reset(list)
				}
			}
		}
		return nil
	})
}

// protect refuses write and edit calls on the contract file: the
// harness checks the contract, and the model may not change it. (Bash
// runs in a sandbox that keeps .rein read-only; the contract is also
// read once, when the agent opens.)
func protect(root, contract string) tool.Middleware {
	target := canonical(contract)
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call *tool.Call) tool.Result {
			if call.Tool != nil && !call.Tool.ReadOnly {
				var args map[string]any
				if json.Unmarshal(call.Args, &args) == nil {
					for _, k := range []string{"path", "file_path"} {
						p, _ := args[k].(string)
						if p == "" {
							continue
						}
						if !filepath.IsAbs(p) {
							p = filepath.Join(root, p)
						}
						if canonical(p) == target {
							return tool.Errorf("refused: %s is the task's contract, which the harness checks before the run may end; it may not be changed during the run. Meet its checks instead (work_item_list shows the plan).", contract)
						}
					}
				}
			}
			return next(ctx, call)
		}
	}
}

func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(d, filepath.Base(p))
	}
	return p
}

// WorkItems returns the agent's work-item ledger: the list the model
// keeps through the work-item tools, stored in the session log.
func (a *Agent) WorkItems() *work.Ledger { return a.s.work.ledger }

// workToolWanted reports whether Options.Tools offers the work-item tool
// name: it does unless it says "-name", or lists tools without naming a
// toolset, "work" or the tool itself.
func (s *setup) workToolWanted(name string) bool {
	spec := strings.TrimSpace(s.o.Tools)
	if spec == "" {
		return true
	}
	named, listed := false, false
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if d, ok := strings.CutPrefix(item, "-"); ok {
			if d == name || d == "work" {
				return false
			}
			continue
		}
		if item == "" {
			continue
		}
		listed = true
		if item == name || item == "work" || tool.Toolsets()[item] != nil {
			named = true
		}
	}
	return named || !listed
}
