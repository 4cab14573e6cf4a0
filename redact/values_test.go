package redact

import "testing"

func TestValuesMasksKnownKeys(t *testing.T) {
	tests := []struct {
		s      string
		values []string
		want   string
	}{
		{"bad key sk-1234 here", []string{"sk-1234"}, "bad key " + Mask + " here"},
		{"key abc stays", []string{"abc"}, "key abc stays"}, // shorter than MinKeyLen
		{"k=secret-long and secret", []string{"secret", "secret-long"}, "k=" + Mask + " and " + Mask},
		{"nothing", nil, "nothing"},
		{"", []string{"abcd"}, ""},
	}
	for _, tt := range tests {
		if got := Values(tt.s, tt.values...); got != tt.want {
			t.Errorf("Values(%q, %q) = %q, want %q", tt.s, tt.values, got, tt.want)
		}
	}
}
