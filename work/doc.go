// Package work holds what a long task needs beyond the loop: work items
// (the plan the model keeps through tools, stored as session state),
// contracts (predicates that must hold before a run may report success)
// and verification evidence (commands the harness runs itself, in the
// sandbox, each recorded with a content hash of the workspace tree so
// that evidence taken before a later edit is known to be stale).
//
// The package knows no provider and no front-end. A Ledger is the list
// of work items of one session; its Tools give the model
// work_item_add, work_item_update, work_item_list and TodoWrite (Claude
// Code's name and schema). RunCommand runs one verify command and
// returns its Evidence. A Verifier checks a Contract at the end of a
// run and plugs into the harness stop policy (harness.Verifier). See
// docs/long-horizon.md.
package work
