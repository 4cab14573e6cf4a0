//go:build unix

package permission

import (
	"io/fs"
	"syscall"
)

// nlink returns how many names a file has.
func nlink(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
