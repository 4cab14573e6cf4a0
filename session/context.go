package session

import (
	"github.com/reinhq/rein/llm"
)

// Context is the conversation at one leaf, ready for a model request
// (pass Messages through llm.Sendable before sending).
type Context struct {
	// Leaf is the entry the context was built at.
	Leaf string
	// Messages are the messages on the path from the root to the leaf,
	// with compaction and branch summaries in place (see BuildContext).
	Messages []llm.Message
	// EntryIDs[i] is the entry Messages[i] came from: a message entry, or
	// the compaction or branch_summary entry of a summary message.
	EntryIDs []string
	// Provider and Model are from the last model_change on the path;
	// empty when there is none. ContextWindow is its window, 0 when it
	// did not record one.
	Provider, Model string
	ContextWindow   int
	// Thinking is from the last thinking_change on the path; empty when
	// there is none or it recorded ThinkingDefault.
	Thinking llm.ThinkingLevel
	// ActiveTools is from the last tools_change on the path; nil when
	// there is none (the application's default applies), empty when no
	// tool is active.
	ActiveTools []string
	// Compaction is the ID of the compaction in effect, if any.
	Compaction string
}

// Framing of the summaries Context inserts as user messages.
const (
	CompactionPrefix = "The earlier part of this conversation was compacted to save space. This is a summary of it, not a message from the user:\n\n<summary>\n"
	BranchPrefix     = "The conversation went down another branch and came back to this point. This is a summary of that branch, for reference; it is not a message from the user:\n\n<summary>\n"
	SummarySuffix    = "\n</summary>"
)

// CompactionMessage is the user message that stands for a compaction.
func CompactionMessage(e *Entry) llm.Message {
	m := llm.UserText(CompactionPrefix + e.Summary + SummarySuffix)
	m.Timestamp = e.Timestamp
	return m
}

// BranchSummaryMessage is the user message that stands for a branch
// summary.
func BranchSummaryMessage(e *Entry) llm.Message {
	m := llm.UserText(BranchPrefix + e.Summary + SummarySuffix)
	m.Timestamp = e.Timestamp
	return m
}

// BuildContext builds the conversation at leaf from entries (as ReadFile
// returns them; a Session does the same with Context). It walks from the
// leaf to the root and then, in order:
//
//   - with a compaction on the path (the last one with a summary counts;
//     one without is ignored, see IssueBadCompaction): its summary
//     first, as a user message framed as a summary (CompactionMessage),
//     then the entries from its FirstKept up to the compaction (none if
//     FirstKept is empty or not on the path), then the entries after it;
//     earlier compactions inside the kept range are superseded and left
//     out;
//   - message entries give their message;
//   - branch_summary entries give a user message framed as the summary of
//     an abandoned branch, where they were created (BranchSummaryMessage);
//   - model_change, thinking_change and tools_change entries anywhere on
//     the path (compacted or not) set Provider/Model, Thinking and
//     ActiveTools; the last one wins;
//   - custom entries and entries of unknown types are skipped.
//
// A leaf that is not a tree entry of entries gives an empty context.
func BuildContext(entries []Entry, leaf string) Context {
	l := &log{index: make(map[string]int, len(entries)), entries: listOf(entries)}
	for i := range entries {
		if _, dup := l.index[entries[i].ID]; !dup {
			l.index[entries[i].ID] = i
		}
	}
	return l.context(leaf)
}

// LastLeaf is the leaf a session file's entries leave: what Open
// restores. It lets ReadFile users build the context a writer would see.
func LastLeaf(entries []Entry) string {
	// As when loading, the index holds the entries up to the one
	// applied.
	l := &log{index: make(map[string]int, len(entries)), labels: map[string]string{}, entries: listOf(entries)}
	for i := range entries {
		if _, dup := l.index[entries[i].ID]; dup {
			continue
		}
		l.index[entries[i].ID] = i
		l.apply(&entries[i], nil)
	}
	return l.leaf
}

// nearParent is how many entries before a child path looks for its
// parent before asking the index. A parent is most often the entry just
// before its child; between them there may be a few entries that are not
// part of the tree (labels, session info).
const nearParent = 4

// path returns the indexes of the tree entries from id to the root, id
// first. It stops at an ID the log does not hold.
func (l *log) path(id string) []int {
	var idx []int
	i, ok := l.index[id]
	for ok && len(idx) <= l.entries.len() {
		idx = append(idx, i)
		parent := l.entries.at(i).Parent
		if parent == "" {
			break
		}
		ok = false
		for j := i - 1; j >= max(0, i-nearParent); j-- {
			if l.entries.at(j).ID == parent {
				i, ok = j, true
				break
			}
		}
		if !ok {
			i, ok = l.index[parent]
		}
	}
	return idx
}

// branch returns the tree entries from the root to id. Parents always
// precede their children in the log, so the walk ends.
func (l *log) branch(id string) []Entry {
	idx := l.path(id)
	out := make([]Entry, len(idx))
	for k, i := range idx {
		out[len(idx)-1-k] = *l.entries.at(i)
	}
	return out
}

func (l *log) context(leaf string) Context {
	c := Context{Leaf: leaf}
	if !l.isTree(leaf) {
		c.Leaf = ""
		return c
	}
	path := l.path(leaf)
	// path is leaf→root. Find the compaction in effect, the first one
	// from the leaf, counting the messages after it (all of them when
	// there is none).
	compaction, kept, n := -1, -1, 0
	for k := 0; k < len(path) && compaction < 0; k++ {
		switch e := l.entries.at(path[k]); e.Type {
		case TypeCompaction:
			if e.Summary != "" { // one without is ignored (IssueBadCompaction)
				compaction = k
			}
		case TypeMessage, TypeBranchSummary:
			n++
		}
	}
	if compaction >= 0 {
		ce := l.entries.at(path[compaction])
		c.Compaction = ce.ID
		for k := compaction + 1; k < len(path) && ce.FirstKept != ""; k++ {
			if l.entries.at(path[k]).ID == ce.FirstKept {
				kept = k
				break
			}
		}
		n++ // its summary
		for k := compaction + 1; k <= kept; k++ {
			if t := l.entries.at(path[k]).Type; t == TypeMessage || t == TypeBranchSummary {
				n++
			}
		}
	}
	// Then walk it root→leaf.
	c.Messages = make([]llm.Message, n)
	c.EntryIDs = make([]string, n)
	m := 0
	if compaction >= 0 {
		ce := l.entries.at(path[compaction])
		c.Messages[0], c.EntryIDs[0] = CompactionMessage(ce), ce.ID
		m++
	}
	for k := len(path) - 1; k >= 0; k-- {
		e := l.entries.at(path[k])
		switch e.Type {
		case TypeModelChange:
			c.Provider, c.Model, c.ContextWindow = e.Provider, e.Model, e.ContextWindow
		case TypeThinkingChange:
			c.Thinking = e.Thinking
			if c.Thinking == ThinkingDefault {
				c.Thinking = ""
			}
		case TypeToolsChange:
			c.ActiveTools = append(make([]string, 0, len(e.Tools)), e.Tools...)
		}
		if compaction >= 0 && (k == compaction || k > compaction && k > kept) {
			continue // the compaction itself, or summarised by it
		}
		switch e.Type {
		case TypeMessage:
			c.Messages[m], c.EntryIDs[m] = *e.Message, e.ID
			m++
		case TypeBranchSummary:
			c.Messages[m], c.EntryIDs[m] = BranchSummaryMessage(e), e.ID
			m++
		}
	}
	return c
}
