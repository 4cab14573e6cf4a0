package main

import "github.com/reinhq/rein/coding"

// readPrompt returns the prompt of a one-shot run from the arguments and
// standard input (see coding.ReadPrompt); an empty prompt is
// errEmptyPrompt, a usage error.
func readPrompt(e *env, args []string) (string, error) {
	return coding.ReadPrompt(args, e.stdin, isTerminalIn(e))
}
