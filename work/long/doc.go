// Package long is rein's long mode: a goal too large for one context
// window is split by an initializer session into a plan of tasks, and
// worker sessions then take the tasks one at a time, each in a fresh
// session that starts from the files on disk rather than from memory.
//
// Three files carry the state between sessions (names configurable, see
// Layout):
//
//   - the progress file, a JSON array of tasks, each with an id, a title,
//     acceptance criteria, verify commands and a status (todo,
//     in_progress, done, cancelled);
//   - the notes file, free text a person and the next session read, to
//     which the harness appends one entry per session;
//   - the set-up script, run by the harness at the start of every worker
//     session to bring the workspace to a known state.
//
// The harness, not the model, decides when a task is done: at the end of
// a worker session it runs the task's verify commands itself and marks
// the task done only when every one of them exits 0 and the model has
// committed its work; the evidence (commands, exit codes, the commit and
// the tree hash) is written beside the task. The model changes the plan
// only through the work-item tools, which map onto the progress file; a
// write or edit of the file itself is refused and names the tool to use.
//
// Writes of the progress file are atomic (a temporary file renamed over
// it) and made under a file lock, so a reader never sees half a plan.
package long
