package tool

import (
	"slices"
	"testing"
)

func TestSplitList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,\t", nil},
		{"Read, Grep", []string{"Read", "Grep"}},
		{"Read Grep\nGlob", []string{"Read", "Grep", "Glob"}},
		{"Bash(git add:*), Read", []string{"Bash(git add:*)", "Read"}},
		{"Bash(npm run (a b)), Edit", []string{"Bash(npm run (a b))", "Edit"}},
		{"Bash(unclosed x, Read", []string{"Bash(unclosed x, Read"}},
		{"a) b", []string{"a)", "b"}},
	} {
		if got := SplitList(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("SplitList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
