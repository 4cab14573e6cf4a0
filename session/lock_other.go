//go:build !unix

package session

// processAlive cannot tell on this platform, so every holder is assumed
// alive and stale locks are never taken over.
func processAlive(pid int) bool { return true }

// pidNamespace is empty: this platform has no pid namespaces to tell.
func pidNamespace() string { return "" }
