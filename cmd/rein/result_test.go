package main

import "github.com/reinhq/rein/coding"

// result is the document the tests read from --output rein-json and
// --output json (whose Claude Code fields it leaves aside).
type result = coding.RunResult
