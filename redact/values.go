package redact

import "strings"

// MinKeyLen is the shortest value Values masks.
const MinKeyLen = 4

// Values returns s with every occurrence of each given value replaced by
// Mask, longest first. It is for values known to be secrets, such as the
// API key a request was sent with (which error text may quote back), so
// it masks shorter values than New does (from MinKeyLen), and no formats.
func Values(s string, values ...string) string {
	var keep []string
	for _, v := range values {
		if len(v) >= MinKeyLen && strings.Contains(s, v) {
			keep = append(keep, v)
		}
	}
	if len(keep) == 0 {
		return s
	}
	// Longer values first, so a value that contains another is masked whole.
	for i := 1; i < len(keep); i++ {
		for j := i; j > 0 && len(keep[j]) > len(keep[j-1]); j-- {
			keep[j], keep[j-1] = keep[j-1], keep[j]
		}
	}
	for _, v := range keep {
		s = strings.ReplaceAll(s, v, Mask)
	}
	return s
}
