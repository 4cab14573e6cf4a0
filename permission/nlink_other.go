//go:build !unix

package permission

import "io/fs"

// nlink returns how many names a file has; unknown here, so one.
func nlink(fi fs.FileInfo) uint64 { return 1 }
