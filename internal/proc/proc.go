// Package proc is the one way rein starts, bounds and kills the process
// groups of the commands it runs: command hooks, MCP stdio servers, bash
// calls and background jobs.
//
// A command started after Prepare leads a process group of its own and,
// on Linux, gets SIGKILL when rein dies (a parent-death signal), so a
// crash of rein does not leave it running. Stop ends it with one timing
// for every caller: SIGTERM to the group and to every descendant (a
// setsid'd child leaves the group but not the process tree), then, once
// none of them is alive or Grace has passed, SIGKILL to all of them.
// Processes that were orphaned before Stop (their parent exited and they
// were adopted by init) are out of reach here; a sandbox's PID namespace
// or its subreaper helper takes care of those.
package proc

import "time"

// DefaultGrace is the time Stop gives a group between SIGTERM and
// SIGKILL when the caller names none.
const DefaultGrace = 2 * time.Second

// pollEvery is how often Stop looks whether the group has gone: the
// kernel offers no event for a group becoming empty, only for the
// leader's exit (which the caller's exited channel reports at once).
const pollEvery = 20 * time.Millisecond
