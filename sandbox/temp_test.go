package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPrivateTempRemoved(t *testing.T) {
	a, err := PrivateTemp()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := PrivateTemp(); b != a {
		t.Fatalf("a second call made another directory: %s, %s", a, b)
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("private temp %s: %v %v", a, fi, err)
	}
	os.MkdirAll(filepath.Join(a, "left", "by", "a", "command"), 0o755)
	if err := RemovePrivateTemp(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Fatalf("%s is still there: %v", a, err)
	}
	if err := RemovePrivateTemp(); err != nil {
		t.Fatalf("removing twice: %v", err)
	}
	c, err := PrivateTemp()
	if err != nil {
		t.Fatal(err)
	}
	defer RemovePrivateTemp()
	if c == a {
		t.Fatal("the removed directory's name was used again")
	}
	if _, err := os.Stat(c); err != nil {
		t.Fatal(err)
	}
}
