package permission

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWithinMatchesRel checks the fast path of within against the
// definition through filepath.Rel, on absolute paths clean and not.
func TestWithinMatchesRel(t *testing.T) {
	byRel := func(root, p string) bool {
		rel, err := filepath.Rel(root, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
	}
	paths := []string{"/", "/w", "/w/", "/w/a", "/w/a/b", "/wx", "/wx/a", "/w/../x", "/w/./a", "//w//a", "/a/w", "/w/a/..", "/w/..a", "/w/a/../../w/b"}
	for _, root := range paths {
		for _, p := range paths {
			if got, want := within(root, p), byRel(root, p); got != want {
				t.Errorf("within(%q, %q) = %v, want %v", root, p, got, want)
			}
		}
	}
}
