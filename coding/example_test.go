package coding

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's library example is coding/testdata/example/main.go,
// verbatim, and it compiles and runs: it opens an agent on a directory
// with the scripted model, which reads hello.txt, and prints the events.
func TestReadmeExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "example", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, append(append([]byte("```go\n"), src...), []byte("```\n")...)) {
		t.Fatal("README.md does not show coding/testdata/example/main.go as it is; copy the file into the README's library section")
	}
	if n := bytes.Count(src, []byte("\n")); n > 40 {
		t.Errorf("the example has %d lines; the README promises at most 40", n)
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{"hello.txt": "hello from the file\n"})
	home := t.TempDir()
	cmd := exec.Command("go", "run", "./testdata/example", dir, "read hello.txt")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_STATE_HOME="+filepath.Join(home, ".state"))
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, v+"="+strings.TrimSpace(string(out)))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	for _, want := range []string{"tool read:", "hello from the file", "assistant: It says hello.", "stop: completed <nil>"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the example's output lacks %q:\n%s", want, out)
		}
	}
}
