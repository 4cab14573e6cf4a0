// Package redact removes secrets from text before rein writes or emits
// it: the session log, events, stream-json output, stderr and the
// failover cooldown state all pass through one Redactor.
//
// A Redactor replaces two kinds of secret with Mask:
//
//   - known formats, found by pattern: provider keys (sk-…, sk-ant-…,
//     AIza…), GitHub tokens (ghp_…, gho_…, github_pat_…), AWS access key
//     ids (AKIA…, ASIA…), Slack tokens (xox…), JSON Web Tokens, PEM
//     private key blocks and Bearer credentials; key material without its
//     armour (PEM and OpenSSH body lines, DER and key blobs, see
//     maskKeyMaterial) and the passwords of URLs (scheme://user:pass@);
//   - known values: the values of environment variables whose names look
//     like secrets (see SecretName), and any value added with New. Each
//     value is also matched in its JSON-escaped form and as the standard
//     base64 of the value (with and without a trailing newline), so
//     `echo $TOKEN | base64` is caught; base64 of a value embedded in a
//     longer text, other encodings (hex, gzip, a value split by the
//     command itself) are not.
//
// Values shorter than MinValueLen are ignored: masking "1" or "true"
// would destroy logs and protect nothing.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Mask replaces every secret found.
const Mask = "[REDACTED]"

// MinValueLen is the shortest known value a Redactor masks.
const MinValueLen = 8

// patterns match the known secret formats (compiled on first use, so
// that programs that never redact, such as the sandbox helper, start fast). Each is anchored on a prefix
// that rarely occurs in other text, so the search stays fast.
var patterns = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.Join([]string{
		`sk-ant-[A-Za-z0-9_\-]{20,}`,
		`sk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{20,}`,
		`AIza[0-9A-Za-z_\-]{35}`,
		`gh[pousr]_[A-Za-z0-9]{30,}`,
		`github_pat_[A-Za-z0-9_]{22,}`,
		`(?:AKIA|ASIA)[0-9A-Z]{16}`,
		`xox[abposr]-[A-Za-z0-9\-]{10,}`,
		`eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`,
		`-----BEGIN[A-Z ]{0,20} PRIVATE KEY-----[^"]*?-----END[A-Z ]{0,20} PRIVATE KEY-----`,
		`(?i:bearer)\s+[A-Za-z0-9._~+/\-]{20,}=*`,
	}, "|"))
})

// prefixes are the literal starts of patterns; text holding none of them
// skips the regular expression.
var prefixes = []string{"sk-", "AIza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AKIA", "ASIA", "xox", "eyJ", "-----BEGIN", "earer", "EARER"}

// Redactor masks secrets. It is immutable after New and safe for
// concurrent use. A nil *Redactor masks known formats only.
type Redactor struct {
	values   *strings.Replacer
	index    *valueIndex // finds whether values has anything to do
	hasValue bool
}

// New returns a redactor for the known formats and the given secret
// values (values shorter than MinValueLen are ignored).
func New(values ...string) *Redactor {
	var forms []string
	seen := map[string]bool{}
	add := func(v string) {
		if len(v) >= MinValueLen && !seen[v] {
			seen[v] = true
			forms = append(forms, v)
		}
	}
	for _, v := range values {
		if len(v) < MinValueLen {
			continue
		}
		add(v)
		if b, err := json.Marshal(v); err == nil {
			add(string(b[1 : len(b)-1]))
		}
		add(strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(v)), "="))
		add(strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(v+"\n")), "="))
	}
	r := &Redactor{}
	if len(forms) == 0 {
		return r
	}
	// Longer forms first, so a value that contains another is masked whole.
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Mask)
	}
	r.values = strings.NewReplacer(pairs...)
	r.index = newValueIndex(forms)
	r.hasValue = true
	return r
}

// FromEnv returns a redactor for the known formats and the values of the
// variables in environ (KEY=VALUE) whose names look like secrets (except
// values that are file paths or URLs without credentials), plus extra
// values.
func FromEnv(environ []string, extra ...string) *Redactor {
	vals := append([]string(nil), extra...)
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && SecretName(k) && valueMayBeSecret(v) {
			vals = append(vals, v)
		}
	}
	return New(vals...)
}

// valueMayBeSecret reports whether the value of a secret-looking
// variable should be masked: not a file path or a URL without
// credentials (AWS_CA_BUNDLE=/etc/ssl/…, AWS_ENDPOINT_URL=https://…), which
// would mask ordinary text everywhere and protect nothing.
func valueMayBeSecret(v string) bool {
	if len(v) < MinValueLen {
		return false
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") {
		return false
	}
	if i := strings.Index(v, "://"); i > 0 && !strings.Contains(v[i+3:], "@") {
		return false
	}
	return true
}

// String returns s with every secret masked.
func (r *Redactor) String(s string) string {
	if r != nil && r.hasValue && r.index.containsAny(s) {
		s = r.values.Replace(s)
	}
	if maybePattern(s) {
		s = patterns().ReplaceAllString(s, Mask)
	}
	return maskURLPasswords(maskKeyMaterial(s))
}

// Bytes returns b with every secret masked; b itself is not changed, and
// is returned as is when it holds none.
func (r *Redactor) Bytes(b []byte) []byte {
	s := string(b)
	out := r.String(s)
	if out == s {
		return b
	}
	return []byte(out)
}

// maybePattern reports whether s holds a prefix of a known format.
func maybePattern(s string) bool {
	for _, p := range prefixes {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
