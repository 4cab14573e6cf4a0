package session

import (
	"encoding/json"
	"time"

	"github.com/reinhq/rein/llm"
)

// FormatVersion is the version of the file format this package writes.
// It changes only for incompatible changes; new entry types and new
// fields are additive and keep the version (see docs/session-format.md).
const FormatVersion = 1

// HeaderType is the "type" of a session file's first line.
const HeaderType = "session"

// Header is the first line of a session file.
type Header struct {
	// Type is always HeaderType.
	Type    string    `json:"type"`
	Version int       `json:"version"`
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	// Cwd is the working directory the session was created for.
	Cwd string `json:"cwd,omitempty"`
	// Parent is the ID of the session this one was forked from.
	Parent string `json:"parent,omitempty"`
	// ParentPath is the file the parent session was read from when it was
	// forked, as a hint for finding it; it may have moved since.
	ParentPath string `json:"parent_path,omitempty"`
	// Source says where an imported session came from; nil for a session
	// rein started itself.
	Source *Source `json:"source,omitempty"`
	// Agent links a sub-agent's session to the session that spawned it;
	// nil for a session a user started.
	Agent *AgentLink `json:"agent,omitempty"`
}

// AgentLink is the header of a sub-agent's session: which session and
// tool call spawned it, as which agent, how deep.
type AgentLink struct {
	// ParentSession is the ID of the spawning session; ParentPath its
	// file, a hint that may go stale.
	ParentSession string `json:"parent_session"`
	ParentPath    string `json:"parent_path,omitempty"`
	// ParentCall is the tool call that spawned it.
	ParentCall string `json:"parent_call,omitempty"`
	// Type is the agent's definition name (the subagent_type).
	Type string `json:"type"`
	// Depth is 1 for a child of a user's session, 2 for a grandchild…
	Depth int `json:"depth"`
}

// Source is the provenance of a session imported from another
// harness's recording (see docs/sessions-interop.md).
type Source struct {
	// Format names the recording's format: "pi", "claude", "codex",
	// "opencode" or "rein".
	Format string `json:"format"`
	// Version is the format or program version the recording states.
	Version string `json:"version,omitempty"`
	// Path is the file it was read from.
	Path string `json:"path,omitempty"`
	// ID is the recording's own session id, byte for byte.
	ID string `json:"id,omitempty"`
}

// EntryType names the kind of an entry.
type EntryType string

// Entry types. Tree entries (message, model_change, thinking_change,
// tools_change, compaction, branch_summary, custom and entries of types
// this version does not know) are nodes of the conversation tree: appending
// one moves the leaf to it. Side entries (leaf, label, session_info) record
// facts about the tree; they are never on a path and do not move the leaf
// themselves (a leaf entry sets it to its Target).
const (
	TypeMessage        EntryType = "message"
	TypeModelChange    EntryType = "model_change"
	TypeThinkingChange EntryType = "thinking_change"
	TypeToolsChange    EntryType = "tools_change"
	TypeCompaction     EntryType = "compaction"
	TypeBranchSummary  EntryType = "branch_summary"
	TypeLeaf           EntryType = "leaf"
	TypeLabel          EntryType = "label"
	TypeSessionInfo    EntryType = "session_info"
	TypeCustom         EntryType = "custom"
	// TypeWorkItems is a side entry holding the whole work-item list
	// after a change (see package work); the last one in the file counts.
	TypeWorkItems EntryType = "work_items"
)

// ThinkingDefault is the thinking level a thinking_change entry records
// when the application went back to the model's own default (the empty
// llm.ThinkingLevel, which a log line cannot tell apart from a missing
// field). Context reports it as the empty level.
const ThinkingDefault llm.ThinkingLevel = "default"

// Known reports whether this version of the package understands t.
func (t EntryType) Known() bool {
	switch t {
	case TypeMessage, TypeModelChange, TypeThinkingChange, TypeToolsChange, TypeCompaction,
		TypeBranchSummary, TypeLeaf, TypeLabel, TypeSessionInfo, TypeCustom, TypeWorkItems:
		return true
	}
	return t.Journal()
}

// Side reports whether entries of type t are side entries: facts about
// the tree that are never part of a path (leaf, label, session_info,
// work_items and the journal entries).
func (t EntryType) Side() bool {
	return t == TypeLeaf || t == TypeLabel || t == TypeSessionInfo || t == TypeWorkItems || t.Journal()
}

// Entry is one line of a session file after the header. Type says which
// payload fields are meaningful:
//
//   - message:          Message
//   - model_change:     Provider, Model, ContextWindow
//   - thinking_change:  Thinking
//   - tools_change:     Tools (the complete list of active tool names)
//   - compaction:       Summary, FirstKept, TokensBefore, FilesRead, FilesModified
//   - branch_summary:   From, Summary
//   - leaf:             Target ("" = before the first entry)
//   - label:            Target, Label ("" clears the label)
//   - session_info:     Name
//   - custom:           Kind, Data
//   - work_items:       Items (a JSON array: the whole list)
//
// An entry of a type this version does not know keeps its line verbatim
// in Raw, with Type, ID, Parent and Timestamp decoded from it; it is
// written back byte for byte when the session is forked and is skipped
// when the context is built.
//
// Entries returned by a Session share Message with the session's own
// copy: treat them as read-only (use llm.Message.Clone to change one).
type Entry struct {
	Type EntryType `json:"type"`
	// ID is short random hex, unique in the file.
	ID string `json:"id"`
	// Parent is the ID of the entry this one follows; "" for a root.
	// For side entries it records where the leaf was when they were made.
	Parent    string    `json:"parent,omitempty"`
	Timestamp time.Time `json:"timestamp"`

	// Message is the payload of a message entry.
	Message *llm.Message `json:"message,omitempty"`

	// Provider and Model are the payload of a model_change entry, with
	// the model's context window when known (so that a replay measures
	// the session at the window it ran in).
	Provider      string `json:"provider,omitempty"`
	Model         string `json:"model,omitempty"`
	ContextWindow int    `json:"context_window,omitempty"`

	// Thinking is the payload of a thinking_change entry.
	Thinking llm.ThinkingLevel `json:"thinking,omitempty"`

	// Tools is the payload of a tools_change entry: every active tool
	// name. An empty list means no tools are active.
	Tools []string `json:"tools,omitzero"`

	// Summary is the text of a compaction or branch_summary entry.
	Summary string `json:"summary,omitempty"`
	// FirstKept is the ID of the first entry on the path that a compaction
	// keeps verbatim; entries before it are represented by Summary.
	FirstKept string `json:"first_kept,omitempty"`
	// TokensBefore is the size of the context before the compaction.
	TokensBefore int `json:"tokens_before,omitempty"`
	// FilesRead and FilesModified are the files the compacted part of the
	// conversation read and changed, carried forward by later compactions.
	// They are metadata and are not shown to the model by Context.
	FilesRead     []string `json:"files_read,omitzero"`
	FilesModified []string `json:"files_modified,omitzero"`

	// From is the leaf of the branch a branch_summary summarises.
	From string `json:"from,omitempty"`

	// Target is the entry a leaf or label entry refers to.
	Target string `json:"target,omitempty"`
	// Label is the payload of a label entry.
	Label string `json:"label,omitempty"`

	// Name is the payload of a session_info entry: the session's name.
	Name string `json:"name,omitempty"`

	// Kind and Data are the payload of a custom entry. Kind names the
	// application-defined kind; Data is any JSON value.
	Kind string          `json:"kind,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`

	// The payload of the journal entries that make crash recovery exact
	// (see journal.go):
	//
	//   - request_started:  Turn
	//   - request_settled:  Target (the request_started entry), Status
	//   - tool_started:     CallID, ToolName, Idempotent, Turn
	//   - tool_settled:     CallID, ToolName, Status
	//   - queued:           Queue, Message
	//   - dequeued:         Target (the queued entry), Status
	//
	// On a message entry, Queued names the queued entry the message
	// delivers: one line both delivers it and takes it off the queue.
	CallID     string `json:"call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	Idempotent bool   `json:"idempotent,omitempty"`
	Turn       int    `json:"turn,omitempty"`
	Status     string `json:"status,omitempty"`
	Queue      string `json:"queue,omitempty"`
	Queued     string `json:"queued,omitempty"`

	// Items is the payload of a work_items entry: the whole work-item
	// list as a JSON array (package work defines its elements).
	Items json.RawMessage `json:"items,omitempty"`

	// Raw holds the original line (without its newline) of an entry this
	// version could not represent fully: an unknown type, or a known type
	// with fields this version does not know. It is written back verbatim
	// on fork. It is nil for entries this version wrote itself.
	Raw json.RawMessage `json:"-"`
}

// IsTree reports whether e is a node of the conversation tree (see the
// entry types), as opposed to a side entry.
func (e *Entry) IsTree() bool { return !e.Type.Side() }
