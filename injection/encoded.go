package injection

import (
	"encoding/base64"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// b64Run finds runs of base64 long enough to hold a sentence.
var b64Run = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z0-9+/_-]{24,}={0,2}`)
})

// maxDecoded bounds how much decoded text Scan looks at, so a huge
// base64 blob (an image) costs little.
const maxDecoded = 64 << 10

// scanEncoded decodes base64 runs in clean that decode to readable text
// and reports the phrase findings in it, on the line of the run: an
// instruction hidden from a person reading the file is still one for
// the model, which decodes base64 readily.
func scanEncoded(clean string) []Finding {
	var out []Finding
	budget := maxDecoded
	for _, m := range b64Run().FindAllStringIndex(clean, -1) {
		if budget <= 0 {
			break
		}
		run := clean[m[0]:m[1]]
		text, ok := decodeText(run)
		if !ok {
			continue
		}
		budget -= len(text)
		line := strings.Count(clean[:m[0]], "\n") + 1
		for _, f := range matchRules(StripInvisible(text)) {
			f.What = "base64-encoded text that " + f.What
			f.Line = line
			out = append(out, f)
		}
	}
	return out
}

// decodeText decodes run as standard or URL-safe base64 and reports
// whether the result is readable text (valid UTF-8, at least nine in
// ten characters printable or spaces).
func decodeText(run string) (string, bool) {
	raw := strings.TrimRight(run, "=")
	var b []byte
	var err error
	if strings.ContainsAny(raw, "-_") {
		b, err = base64.RawURLEncoding.DecodeString(raw)
	} else {
		b, err = base64.RawStdEncoding.DecodeString(raw)
	}
	if err != nil || len(b) < 16 || !utf8.Valid(b) {
		return "", false
	}
	s := string(b)
	total, good := 0, 0
	for _, r := range s {
		total++
		if unicode.IsPrint(r) || r == '\n' || r == '\t' {
			good++
		}
	}
	return s, good*10 >= total*9
}
