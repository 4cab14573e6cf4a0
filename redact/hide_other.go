//go:build !linux

package redact

// HideEnv does nothing outside Linux: see the Linux version.
func HideEnv() {}
