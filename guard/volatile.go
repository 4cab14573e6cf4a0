package guard

import "hash/maphash"

// This file holds what makes two results "the same" for the loop
// detectors: the parts of a result that change between identical runs
// (durations, dates and clock times, pids, UUIDs, addresses, message ids,
// and JSON keys naming such values) are left out of its hash.

// volatileNames are JSON keys whose values change between identical runs.
var volatileNames = [...]string{
	"duration", "elapsed", "took", "latency", "runtime", "time", "timestamp", "ts",
	"date", "created", "updated", "started", "finished", "ended", "mtime", "atime",
	"ctime", "pid", "ppid", "id", "uuid", "etag", "nonce",
}

// volatileKey reports whether a JSON key names a volatile value: one of
// volatileNames, or ending in _at, _ms, _ns, _id, At, Ms, Id (any case for
// the snake forms).
func volatileKey[T ~string | ~[]byte](k T) bool {
	for _, n := range volatileNames {
		if equalFold(k, n) {
			return true
		}
	}
	if len(k) > 3 && k[len(k)-3] == '_' {
		a, b := lower(k[len(k)-2]), lower(k[len(k)-1])
		switch {
		case a == 'a' && b == 't', a == 'm' && b == 's', a == 'n' && b == 's', a == 'i' && b == 'd':
			return true
		}
	}
	if len(k) > 2 {
		a, b := k[len(k)-2], k[len(k)-1]
		if a == 'A' && b == 't' || a == 'M' && b == 's' || a == 'I' && b == 'd' {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func equalFold[T ~string | ~[]byte](a T, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(b); i++ {
		if lower(a[i]) != b[i] {
			return false
		}
	}
	return true
}

// Character classes for the text scanner.
const (
	clsWord uint8 = 1 << iota
	clsDigit
	clsLetter
	clsHex
	// clsMaybe marks the first bytes of volatile spans: digits, hex
	// letters (UUIDs), p (pid) and the first letters of idPrefixes.
	clsMaybe
)

var classes = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		switch {
		case b >= '0' && b <= '9':
			t[c] = clsWord | clsDigit | clsHex | clsMaybe
		case b|0x20 >= 'a' && b|0x20 <= 'z':
			t[c] = clsWord | clsLetter
			if b|0x20 <= 'f' {
				t[c] |= clsHex | clsMaybe
			}
			switch b {
			case 'p', 'P', 'm', 'r', 't', 'c', 'e':
				t[c] |= clsMaybe
			}
		case b == '_':
			t[c] = clsWord
		}
	}
	return t
}()

func isDigit(c byte) bool  { return classes[c]&clsDigit != 0 }
func isLetter(c byte) bool { return classes[c]&clsLetter != 0 }
func isWord(c byte) bool   { return classes[c]&clsWord != 0 }
func isHex(c byte) bool    { return classes[c]&clsHex != 0 }

// seed keys the segment hash; it is chosen once per process, so hashes
// compare within a process only.
var seed = maphash.MakeSeed()

// mixSegment mixes a run of bytes into h with a fast block hash.
func mixSegment[T ~string | ~[]byte](h uint64, s T) uint64 {
	if len(s) == 0 {
		return h
	}
	var v uint64
	switch x := any(s).(type) {
	case string:
		v = maphash.String(seed, x)
	case []byte:
		v = maphash.Bytes(seed, x)
	default:
		v = mixBytes(fnvOffset, s)
	}
	return mix64(h, v)
}

// hashText mixes s into h, replacing each volatile span with a marker:
// ISO dates and times, hh:mm:ss clock times, durations with a unit (0.52s,
// 120ms, 1m3s, "3.1 seconds"), the number after "pid", UUIDs, 0x
// addresses and provider ids such as msg_… or toolu_…. The runs between
// volatile spans are hashed in blocks.
func hashText[T ~string | ~[]byte](h uint64, s T) uint64 {
	seg := 0
	for i := 0; i < len(s); {
		cl := classes[s[i]]
		if cl&clsWord == 0 {
			i++
			continue
		}
		// A word starts here (the loop steps over whole words).
		if cl&clsMaybe != 0 {
			if j := volatileSpan(s, i); j > i {
				h = mixSegment(h, s[seg:i])
				h = mixByte(h, 0xff)
				i, seg = j, j
				continue
			}
		}
		for i < len(s) && classes[s[i]]&clsWord != 0 {
			i++
		}
	}
	return mixSegment(h, s[seg:])
}

// volatileSpan returns the end of a volatile span starting at s[i] (at a
// word start), or i when there is none.
func volatileSpan[T ~string | ~[]byte](s T, i int) int {
	c := s[i]
	if isDigit(c) {
		if j := uuidAt(s, i); j > i {
			return j
		}
		if c == '0' && i+2 < len(s) && s[i+1]|0x20 == 'x' {
			j := i + 2
			for j < len(s) && isHex(s[j]) {
				j++
			}
			if j-i >= 8 && (j == len(s) || !isWord(s[j])) {
				return j
			}
			return i
		}
		if j := dateTimeAt(s, i); j > i {
			return j
		}
		return durationAt(s, i)
	}
	if isHex(c) && i+8 < len(s) && s[i+8] == '-' {
		if j := uuidAt(s, i); j > i {
			return j
		}
	}
	if isLetter(c) {
		// pid 1234, PID: 1234, pid=1234
		if c|0x20 == 'p' && i+3 < len(s) && equalFold(s[i:i+3], "pid") && !isWord(s[i+3]) {
			j := i + 3
			for j < len(s) && (s[j] == ' ' || s[j] == ':' || s[j] == '=' || s[j] == '#') {
				j++
			}
			k := j
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			if k > j {
				return k
			}
			return i
		}
		switch c {
		case 'm', 'r', 't', 'c', 'e':
		default:
			return i
		}
		for _, p := range idPrefixes {
			if len(s)-i > len(p)+5 && s[i] == p[0] && s[i+len(p)-1] == p[len(p)-1] && string(s[i:i+len(p)]) == p {
				j := i + len(p)
				for j < len(s) && (isWord(s[j]) || s[j] == '-') {
					j++
				}
				if j-i-len(p) >= 6 {
					return j
				}
			}
		}
	}
	return i
}

var idPrefixes = [...]string{"msg_", "req_", "toolu_", "call_", "chatcmpl-", "resp_", "run_", "evt_"}

func digitsAt[T ~string | ~[]byte](s T, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for k := i; k < i+n; k++ {
		if !isDigit(s[k]) {
			return false
		}
	}
	return true
}

// uuidAt matches 8-4-4-4-12 hex digits.
func uuidAt[T ~string | ~[]byte](s T, i int) int {
	groups := [5]int{8, 4, 4, 4, 12}
	j := i
	for g, n := range groups {
		for k := 0; k < n; k++ {
			if j >= len(s) || !isHex(s[j]) {
				return i
			}
			j++
		}
		if g < 4 {
			if j >= len(s) || s[j] != '-' {
				return i
			}
			j++
		}
	}
	if j < len(s) && isWord(s[j]) {
		return i
	}
	return j
}

// dateTimeAt matches YYYY-MM-DD with an optional time, or hh:mm:ss with
// optional fractions, each with an optional zone.
func dateTimeAt[T ~string | ~[]byte](s T, i int) int {
	j := i
	if digitsAt(s, j, 4) && j+4 < len(s) && (s[j+4] == '-' || s[j+4] == '/') &&
		digitsAt(s, j+5, 2) && j+7 < len(s) && s[j+7] == s[j+4] && digitsAt(s, j+8, 2) {
		j += 10
		if j+1 < len(s) && (s[j] == 'T' || s[j] == ' ') && isDigit(s[j+1]) {
			if k := clockAt(s, j+1); k > j+1 {
				j = k
			}
		}
		return zoneAt(s, j)
	}
	if k := clockAt(s, i); k > i {
		return zoneAt(s, k)
	}
	return i
}

// clockAt matches h:mm:ss or hh:mm:ss with optional fractional seconds.
func clockAt[T ~string | ~[]byte](s T, i int) int {
	j := i
	n := 0
	for j < len(s) && isDigit(s[j]) && n < 2 {
		j++
		n++
	}
	if n == 0 || j >= len(s) || s[j] != ':' || !digitsAt(s, j+1, 2) {
		return i
	}
	j += 3
	if j >= len(s) || s[j] != ':' || !digitsAt(s, j+1, 2) {
		return i
	}
	j += 3
	if j+1 < len(s) && (s[j] == '.' || s[j] == ',') && isDigit(s[j+1]) {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	return j
}

func zoneAt[T ~string | ~[]byte](s T, j int) int {
	if j < len(s) && s[j] == 'Z' {
		return j + 1
	}
	if j+2 < len(s) && (s[j] == '+' || s[j] == '-') && digitsAt(s, j+1, 2) {
		k := j + 3
		if k < len(s) && s[k] == ':' {
			k++
		}
		if digitsAt(s, k, 2) {
			return k + 2
		}
		return j + 3
	}
	return j
}

// durationAt matches a number with a time unit: 0.52s, 120ms, 1m3.5s,
// 2h, 3 seconds, 1.5 sec.
func durationAt[T ~string | ~[]byte](s T, i int) int {
	j, matched := i, false
	for {
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k == j {
			break
		}
		if k+1 < len(s) && s[k] == '.' && isDigit(s[k+1]) {
			k++
			for k < len(s) && isDigit(s[k]) {
				k++
			}
		}
		u := unitAt(s, k)
		if u == k && k < len(s) && s[k] == ' ' {
			if w := unitWordAt(s, k+1); w > k+1 {
				return w
			}
		}
		if u == k {
			break
		}
		j, matched = u, true
	}
	if !matched {
		return i
	}
	return j
}

var units = [...]string{"ns", "us", "µs", "ms", "s", "m", "h", "sec", "secs", "min", "mins"}

// unitAt returns the end of a duration unit at s[k] followed by a word
// boundary, or k.
func unitAt[T ~string | ~[]byte](s T, k int) int {
	best := k
	for _, u := range units {
		if len(s)-k >= len(u) && string(s[k:k+len(u)]) == u {
			e := k + len(u)
			if (e == len(s) || !isLetter(s[e])) && e > best {
				best = e
			}
		}
	}
	return best
}

var unitWords = [...]string{"seconds", "second", "secs", "sec", "ms", "milliseconds", "minutes", "minute", "mins", "min"}

func unitWordAt[T ~string | ~[]byte](s T, k int) int {
	for _, u := range unitWords {
		if len(s)-k >= len(u) && string(s[k:k+len(u)]) == u {
			e := k + len(u)
			if e == len(s) || !isLetter(s[e]) {
				return e
			}
		}
	}
	return k
}
