package hook

import (
	"crypto/sha1"
	"fmt"
	"regexp"
	"strings"
)

// sessionNamespace is the UUID namespace of rein's session ids (a
// version 4 UUID chosen once; it never changes, or hooks would see new
// ids for old sessions).
var sessionNamespace = [16]byte{0x5e, 0x1a, 0x3c, 0x8e, 0x2b, 0x7d, 0x4f, 0x41, 0x9a, 0x06, 0xd3, 0x55, 0x0c, 0x8f, 0x61, 0xe2}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// SessionUUID returns the session_id hooks receive for a rein session
// id, in Claude Code's form, a UUID: the id itself when it already is
// one, else the version 5 (name-based) UUID of it, so that the same
// session — resumed, or seen from another process — always gets the same
// UUID and different sessions different ones. "" stays "".
func SessionUUID(id string) string {
	if id == "" || uuidRE.MatchString(strings.ToLower(id)) {
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
