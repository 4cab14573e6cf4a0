package session

// helperMain runs the child side of multi-process tests; it reports
// whether this process was such a child.
func helperMain() bool { return false }
