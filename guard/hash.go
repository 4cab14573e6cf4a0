package guard

// This file holds the hashes the rules compare: arguments hashed in a
// canonical form (object keys sorted, spaces ignored) and results hashed
// with volatile parts (durations, clock times, pids, message ids, memory
// addresses) left out, so that "the same result" means the same content.
// Both run without allocating for ordinary inputs.

const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func mixByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

func mixBytes[T ~string | ~[]byte](h uint64, b T) uint64 {
	for i := 0; i < len(b); i++ {
		h = (h ^ uint64(b[i])) * fnvPrime
	}
	return h
}

func mix64(h, v uint64) uint64 {
	for i := 0; i < 8; i++ {
		h = mixByte(h, byte(v>>(8*i)))
	}
	return h
}

// callKey identifies a call: its tool and canonical arguments.
func callKey(tool string, args []byte) uint64 {
	h := mixBytes(fnvOffset, tool)
	h = mixByte(h, 0)
	if v, end, ok := canonical(args, 0, 0, false); ok && skipSpace(args, end) == len(args) {
		return mix64(h, v)
	}
	return mixBytes(mixByte(h, 1), args)
}

// resultHash identifies a result's content: JSON results are hashed in
// canonical form without volatile keys; text with volatile spans skipped.
func resultHash(isError bool, text string) uint64 {
	h := fnvOffset
	if isError {
		h = mixByte(h, 'E')
	}
	i := skipSpace(text, 0)
	if i < len(text) && (text[i] == '{' || text[i] == '[') {
		if v, end, ok := canonical(text, i, 0, true); ok && skipSpace(text, end) == len(text) {
			return mix64(h, v)
		}
	}
	return hashText(h, text)
}

// member is one object member during canonical hashing: the span of its
// key and the hash of its value.
type member struct {
	ks, ke int
	h      uint64
}

// canonical hashes the JSON value at b[i:] with object keys sorted. With
// volatile set, members with volatile keys are dropped and strings are
// hashed with hashText. It returns the hash, the index after the value and
// whether the value was valid JSON.
func canonical[T ~string | ~[]byte](b T, i, depth int, volatile bool) (uint64, int, bool) {
	i = skipSpace(b, i)
	if i >= len(b) || depth > maxDepth {
		return 0, 0, false
	}
	switch c := b[i]; c {
	case '"':
		end := skipString(b, i)
		if end < 0 {
			return 0, 0, false
		}
		h := mixByte(fnvOffset, '"')
		if volatile {
			h = hashText(h, b[i+1:end-1])
		} else {
			h = mixBytes(h, b[i+1:end-1])
		}
		return h, end, true
	case '[':
		h := mixByte(fnvOffset, '[')
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return h, i + 1, true
		}
		for {
			v, end, ok := canonical(b, i, depth+1, volatile)
			if !ok {
				return 0, 0, false
			}
			h = mix64(h, v)
			i = skipSpace(b, end)
			if i >= len(b) {
				return 0, 0, false
			}
			if b[i] == ']' {
				return h, i + 1, true
			}
			if b[i] != ',' {
				return 0, 0, false
			}
			i++
		}
	case '{':
		var arr [16]member
		ms := arr[:0]
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return mixByte(fnvOffset, '{'), i + 1, true
		}
		for {
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != '"' {
				return 0, 0, false
			}
			ke := skipString(b, i)
			if ke < 0 {
				return 0, 0, false
			}
			m := member{ks: i + 1, ke: ke - 1}
			i = skipSpace(b, ke)
			if i >= len(b) || b[i] != ':' {
				return 0, 0, false
			}
			v, end, ok := canonical(b, i+1, depth+1, volatile)
			if !ok {
				return 0, 0, false
			}
			m.h = v
			if !volatile || !volatileKey(b[m.ks:m.ke]) {
				ms = append(ms, m)
			}
			i = skipSpace(b, end)
			if i >= len(b) {
				return 0, 0, false
			}
			if b[i] == '}' {
				i++
				break
			}
			if b[i] != ',' {
				return 0, 0, false
			}
			i++
		}
		// Insertion sort by key: objects are small.
		for x := 1; x < len(ms); x++ {
			for y := x; y > 0 && keyLess(b, ms[y], ms[y-1]); y-- {
				ms[y], ms[y-1] = ms[y-1], ms[y]
			}
		}
		h := mixByte(fnvOffset, '{')
		for _, m := range ms {
			h = mixBytes(h, b[m.ks:m.ke])
			h = mixByte(h, 0)
			h = mix64(h, m.h)
		}
		return h, i, true
	default:
		end := skipValue(b, i, depth)
		if end < 0 {
			return 0, 0, false
		}
		switch lit := b[i:end]; string(lit) {
		case "true", "false", "null":
		default:
			if !(c == '-' || c >= '0' && c <= '9') {
				return 0, 0, false
			}
		}
		return mixBytes(mixByte(fnvOffset, '#'), b[i:end]), end, true
	}
}

func keyLess[T ~string | ~[]byte](b T, x, y member) bool {
	a, c := b[x.ks:x.ke], b[y.ks:y.ke]
	n := min(len(a), len(c))
	for i := 0; i < n; i++ {
		if a[i] != c[i] {
			return a[i] < c[i]
		}
	}
	return len(a) < len(c)
}
