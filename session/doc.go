// Package session is rein's log: an append-only JSONL file holding a tree
// of entries, the source of truth for everything that must survive a
// crash. The first line is a Header; every later line is one Entry with
// an id and the id of its parent. The active conversation is the path
// from the current leaf back to the root; branching is appending under an
// older entry, and moving the leaf is itself a durable entry.
//
// A Session is the single writer of one file: Create and Open take an
// flock on <file>.lock (a second writer gets ErrInUse, a *LockedError
// naming the holder's pid), Append makes each entry durable before it
// returns, and Open repairs what a crash left: a torn last line is set
// aside, corrupt lines are skipped and reported with their line numbers
// (entries after them stay reachable), and tool calls that never got a
// result are answered with a synthetic error result. Context turns the
// path into the messages of the next model request, honouring
// compaction and branch summaries.
//
// The file format, durability and locking rules and the compatibility
// promises are documented in docs/session-format.md.
package session
