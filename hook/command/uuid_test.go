package command

import (
	"regexp"
	"testing"
)

// TestSessionUUID: hooks receive a valid UUID for any session id, the
// same for the same id and a different one for another; a UUID passes
// unchanged.
func TestSessionUUID(t *testing.T) {
	v5 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := SessionUUID("0123456789abcdef0123456789abcdef"), SessionUUID("0123456789abcdef0123456789abcdee")
	if !v5.MatchString(a) || !v5.MatchString(b) {
		t.Fatalf("not version 5 UUIDs: %q %q", a, b)
	}
	if a == b {
		t.Fatalf("two sessions share the UUID %s", a)
	}
	if again := SessionUUID("0123456789abcdef0123456789abcdef"); again != a {
		t.Fatalf("the same session got %s, then %s", a, again)
	}
	const u = "0f8fad5b-d9cb-469f-a165-70867728950e"
	if got := SessionUUID(u); got != u {
		t.Fatalf("a UUID became %s", got)
	}
	if got := SessionUUID(""); got != "" {
		t.Fatalf(`"" became %q`, got)
	}
}
