package command

import (
	"crypto/sha1"
	"fmt"
	"strings"
)

// sessionNamespace is the UUID namespace of rein's session ids (a
// version 4 UUID chosen once; it never changes, or hooks would see new
// ids for old sessions).
var sessionNamespace = [16]byte{0x5e, 0x1a, 0x3c, 0x8e, 0x2b, 0x7d, 0x4f, 0x41, 0x9a, 0x06, 0xd3, 0x55, 0x0c, 0x8f, 0x61, 0xe2}

// isUUID reports whether s is a lower-case RFC 4122 UUID.
func isUUID(s string) bool {
	if len(s) != 36 || s[14] < '1' || s[14] > '8' || !strings.ContainsRune("89ab", rune(s[19])) {
		return false
	}
	for i, r := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if r != '-' {
				return false
			}
		} else if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// SessionUUID returns the session_id hooks receive for a rein session
// id, in Claude Code's form, a UUID: the id itself when it already is
// one, else the version 5 (name-based) UUID of it, so that the same
// session — resumed, or seen from another process — always gets the same
// UUID and different sessions different ones. "" stays "".
func SessionUUID(id string) string {
	if id == "" || isUUID(strings.ToLower(id)) {
		return strings.ToLower(id)
	}
	h := sha1.New()
	h.Write(sessionNamespace[:])
	h.Write([]byte(id))
	var b [16]byte
	copy(b[:], h.Sum(nil))
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
