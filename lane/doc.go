// Package lane schedules the work of many sessions in one process: the
// execution lanes every run entry point goes through (the command line,
// the terminal UI, the line chat, sub-agents, the editor agent, the HTTP
// server, a Go service embedding rein).
//
// A Scheduler holds three things:
//
//   - A FIFO per session. Scheduler.Enter gives a session's runs their
//     turn strictly in the order they asked; a second run on a busy
//     session waits, or fails at once with a *BusyError (errors.Is
//     ErrBusy) when the caller says NoWait. With RunOptions.LockFile the
//     lane extends across processes through an flock on a small file
//     beside the session.
//
//   - A global weighted cap on concurrent model requests (default 4).
//     Scheduler.Acquire is called per model request, not per run, and the
//     slot is given back when the stream ends, so a run that waits on a
//     tool or on its user holds no slot. Waiting requests are served in
//     priority order (Foreground, Worker, Background) with aging: a
//     request of level p that arrived at t is served before one of level
//     q that arrived at u exactly when t + p·Aging < u + q·Aging (earliest
//     deadline first), so every waiter is served at the latest
//     Background·Aging after it arrived, plus the time the requests
//     already ahead of it take. The head of the queue is never overtaken
//     by lighter requests behind it.
//
//   - A back-off per provider shared by every lane: after a rate limit
//     (llm.CodeRateLimit) with a Retry-After, requests to that provider
//     wait in the queue until it passes instead of hammering it, while
//     requests to other providers go ahead.
//
// Slots and runs have idle timeouts based on progress, not wall time:
// Slot.Touch (every stream delta) and Run.Touch (stream deltas, tool
// output) restart them; a holder silent for the timeout loses its slot
// or run and its context is cancelled with an *IdleError. A holder that
// never releases therefore cannot keep the cap.
//
// Middleware wraps an llm.Provider so that every Stream call holds a
// slot; Inbox gives a session its queue modes (steer, follow-up,
// collect, interrupt) over a target such as the harness.
//
// Time comes from a Clock (SystemClock, or lanetest.Clock in tests); the
// scheduler starts no goroutine of its own. Default returns the one
// scheduler of a process that every agent opened without its own shares.
package lane
