package session

import (
	"encoding/binary"
	"github.com/reinhq/rein/internal/jsonx"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Words of eight bytes, handled as one: ones*c repeats the byte c in
// every lane, highs is each lane's high bit.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// unquote is the string reader of the fast path: it copies a JSON string
// into the scanner's block and decodes its escapes in the same pass,
// eight bytes at a time. Most of a session file is string content, so
// this loop is where loading spends most of its time.

// unescaped maps the byte after a backslash to what the escape stands
// for; 0 for 'u' and for invalid escapes.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unquote decodes the JSON string whose opening quote is at in[i] into
// dst, as encoding/json decodes it, and returns the length of the result,
// the offset just after the closing quote, and whether the string's raw
// bytes include any of 0x80 or above (then the caller must check that the
// result is valid UTF-8; escapes always decode to valid UTF-8).
//
// dst must be at least len(in)-i bytes long: the loop stores whole words,
// and a decoded string is never longer than its raw form.
//
// ok is false for what the fast path leaves to encoding/json: a string
// that does not end, a control character, an invalid escape, and a \u
// escape of a UTF-16 surrogate that is not half of a pair (which
// encoding/json turns into U+FFFD).
func unquote(dst, in []byte, i int) (n, end int, high, ok bool) {
	var acc uint64 // the raw bytes copied, ORed together
	j := i + 1
	for {
		// Copy plain bytes a word at a time, up to the first byte that
		// is not plain or until less than a word is left.
		for j+8 <= len(in) {
			x := binary.LittleEndian.Uint64(in[j : j+8])
			binary.LittleEndian.PutUint64(dst[n:n+8], x)
			if m := jsonx.StopMask(x); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				acc |= x & (1<<(8*k) - 1)
				j, n = j+k, n+k
				break
			}
			acc |= x
			j, n = j+8, n+8
		}
		if j >= len(in) {
			return 0, 0, false, false
		}
		switch c := in[j]; {
		case c == '"':
			return n, j + 1, acc&highs != 0, true
		case c == '\\' && j+1 < len(in):
			// An escape, below.
		case c < 0x20 || c == '\\':
			return 0, 0, false, false
		default:
			dst[n] = c
			acc |= uint64(c)
			j, n = j+1, n+1
			continue
		}
		if d := unescaped[in[j+1]]; d != 0 {
			dst[n] = d
			j, n = j+2, n+1
			continue
		}
		if in[j+1] != 'u' {
			return 0, 0, false, false
		}
		r, w := escapedRune(in[j:])
		if w == 0 {
			return 0, 0, false, false
		}
		n += utf8.EncodeRune(dst[n:], r)
		j += w
	}
}

// escapedRune decodes the \u escape that starts b, or the pair of them
// that encodes a rune beyond the BMP, and returns the rune and the number
// of bytes read; 0 for an invalid escape or a lone surrogate.
func escapedRune(b []byte) (rune, int) {
	r, ok := jsonx.Hex4(b, 2)
	if !ok {
		return 0, 0
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
		return 0, 0
	}
	r2, ok := jsonx.Hex4(b, 8)
	if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
		return 0, 0
	}
	return r, 12
}
