package coding

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/work"
)

// ErrNoSession is returned by the session operations of an agent opened
// with NoSession.
var ErrNoSession = errors.New("this agent keeps no session log (--no-session)")

// TreeEntry is one node of the session's conversation tree.
type TreeEntry struct {
	ID, Parent string
	// Role is user, assistant, tool_result or the entry type (compaction,
	// branch_summary, model_change…).
	Role  string
	Text  string
	Label string
}

func (a *Agent) session() (*session.Session, error) {
	if s := a.Session(); s != nil {
		return s, nil
	}
	return nil, ErrNoSession
}

// Tree lists the entries of the session's conversation tree in file
// order, and the current leaf.
func (a *Agent) Tree() ([]TreeEntry, string, error) {
	s, err := a.session()
	if err != nil {
		return nil, "", err
	}
	labels := s.Labels()
	var out []TreeEntry
	for _, en := range s.Entries() {
		if !en.IsTree() {
			continue
		}
		te := TreeEntry{ID: en.ID, Parent: en.Parent, Role: string(en.Type), Label: labels[en.ID]}
		switch {
		case en.Message != nil:
			te.Role = string(en.Message.Role)
			te.Text = en.Message.Text()
			if te.Text == "" {
				var names []string
				for _, c := range en.Message.Content {
					if c.Type == llm.ContentToolCall {
						names = append(names, c.Name)
					}
				}
				te.Text = strings.Join(names, ", ")
			}
		case en.Summary != "":
			te.Text = en.Summary
		case en.Model != "":
			te.Text = en.Provider + "/" + en.Model
		case en.Type == session.TypeCustom:
			te.Text = en.Kind
		}
		out = append(out, te)
	}
	return out, s.Leaf(), nil
}

// Navigate moves the conversation to entry id and returns the messages
// of the new path.
func (a *Agent) Navigate(ctx context.Context, id string) ([]llm.Message, error) {
	if _, err := a.session(); err != nil {
		return nil, err
	}
	if err := a.h.Navigate(ctx, id, harness.NavigateOptions{}); err != nil {
		return nil, err
	}
	return a.h.Store().Context().Messages, nil
}

// Label names entry id of the session tree ("" removes the label).
func (a *Agent) Label(id, label string) error {
	if _, err := a.session(); err != nil {
		return err
	}
	return a.h.Label(id, label)
}

// Forked is what Fork made.
type Forked struct {
	// ID names the new session and Old the one forked (short ids, as a
	// user gives them to resume one).
	ID, Old string
	// Switched: the agent continues in the new session.
	Switched bool
	// Messages is the conversation of the new session.
	Messages []llm.Message
	// Note is anything more to tell: how to continue a fork the agent
	// did not move to, and why it did not.
	Note string
}

// ForkCopy copies the path to entry id ("" = the current leaf) into a
// new session file, masked by the agent's redactor like every entry it
// writes, and returns that file's path. Unlike Fork it leaves the agent
// where it is, so a front-end can open the copy as another session. It
// takes no lock on the agent's session and may run beside a prompt: what
// the prompt has not yet flushed is not in the copy.
func (a *Agent) ForkCopy(id string) (string, error) {
	s, err := a.session()
	if err != nil {
		return "", err
	}
	if err := s.Flush(); err != nil {
		return "", err
	}
	forked, err := session.ForkFile(s.Path(), id, session.Options{Redact: a.s.o.Redactor.Bytes})
	if err != nil {
		return "", err
	}
	path := forked.Path()
	return path, forked.Close()
}

// Fork copies the path to entry id ("" = the current leaf) into a new
// session and moves the agent to it; the old session is closed,
// unchanged, and can be resumed. Call it only while no prompt runs. An
// error means there is no fork; a fork the agent cannot move to is
// Forked with Switched false and a Note saying why.
func (a *Agent) Fork(id string) (Forked, error) {
	s, err := a.session()
	if err != nil {
		return Forked{}, err
	}
	if err := s.Flush(); err != nil {
		return Forked{}, err
	}
	if id == "" {
		id = s.Leaf()
	}
	forked, err := s.Fork(id, session.Options{Redact: a.s.o.Redactor.Bytes})
	if err != nil {
		return Forked{}, err
	}
	f := Forked{ID: ShortID(forked.ID()), Old: ShortID(s.ID())}
	if err := a.h.SwitchStore(forked); err != nil {
		f.Note = fmt.Sprintf("%v; continue the fork with rein --resume %s", err, f.ID)
		return f, forked.Close()
	}
	so := a.h.StreamOptions()
	so.SessionID = forked.ID()
	a.h.SetStreamOptions(so)
	a.perm.cmds.SetSession(forked.ID(), forked.Path())
	a.mu.Lock()
	a.sess = forked
	a.mu.Unlock()
	f.Switched, f.Messages = true, forked.Context().Messages
	if w := a.s.work; w != nil && w.agent == "" {
		// The fork's list is its branch's as of the fork point.
		if list, err := work.Decode(forked.WorkItems()); err == nil {
			w.ledger.Reset(list)
		}
	}
	if err := s.Close(); err != nil {
		f.Note = "closing the old session: " + err.Error()
	}
	return f, nil
}

// ShortID is the prefix of a session or entry id users type.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
