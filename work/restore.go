package work

import (
	"encoding/json"

	"github.com/reinhq/rein/session"
)

// Restore gives the verifier the evidence a session log already holds:
// every verification entry (a custom entry of kind EvidenceKind) of
// entries, in file order, for the commands of its predicates. A check
// then reuses the latest one taken on the tree as it is now instead of
// running the command again, exactly as it reuses evidence it took
// itself; evidence from another tree is stale and the command runs. A
// resumed session (after a crash too) so does not run passing checks
// again needlessly, and evidence the log does not hold never counts.
// Entries that do not decode are skipped. Restore returns how many
// pieces of evidence it kept.
func (v *Verifier) Restore(entries []session.Entry) int {
	keys := map[string]bool{}
	for i := range v.o.Predicates {
		if p := &v.o.Predicates[i]; p.Type == PredCommand {
			keys[p.evidenceKey()] = true
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for i := range entries {
		e := &entries[i]
		if e.Type != session.TypeCustom || e.Kind != EvidenceKind {
			continue
		}
		var ev Evidence
		if json.Unmarshal(e.Data, &ev) != nil || ev.Tree == "" {
			continue
		}
		k := evidenceKey(ev.Command, ev.TimeoutMS)
		if !keys[k] {
			continue
		}
		if v.prior == nil {
			v.prior = map[string][]Evidence{}
		}
		v.prior[k] = append(v.prior[k], ev)
		n++
	}
	return n
}

// evidenceKey names the runs of a command predicate: its command and
// the timeout it runs under.
func (p *Predicate) evidenceKey() string {
	t := p.timeout
	if t <= 0 {
		t = DefaultCommandTimeout
	}
	return evidenceKey(p.Run, t.Milliseconds())
}

// evidenceKey names a command run under a timeout.
func evidenceKey(command string, timeoutMS int64) string {
	b, _ := json.Marshal([]any{command, timeoutMS})
	return string(b)
}

// reusable returns the latest evidence of key taken on tree: the
// verifier's own, else the latest restored from the log. Called with
// v.mu held.
func (v *Verifier) reusable(key, tree string) (Evidence, bool) {
	if ev, ok := v.last[key]; ok && ev.Fresh(tree) {
		return ev, true
	}
	prior := v.prior[key]
	for i := len(prior) - 1; i >= 0; i-- {
		if prior[i].Fresh(tree) {
			return prior[i], true
		}
	}
	return Evidence{}, false
}
