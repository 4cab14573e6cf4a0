package harness

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
)

const envHelper, envPath = "REIN_HARNESS_HELPER", "REIN_HARNESS_PATH"

// helperMain runs the child side of multi-process tests when this
// process is such a child (it then exits); otherwise it returns false.
func helperMain() bool {
	switch os.Getenv(envHelper) {
	case "soak":
		soakChild()
		return true
	case "recovery":
		recoveryChild()
		return true
	case "compact":
	default:
		return false
	}
	s, err := session.Open(os.Getenv(envPath), session.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	block := &scriptSummarizer{name: "blocks", reply: func(compact.Request) (string, error) {
		fmt.Println("summarising")
		select {} // killed here
	}}
	h, err := New(Options{Provider: faux.New(), Model: faux.Model(), Store: s, Summarizers: []compact.Summarizer{block}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_, err = h.Compact(context.Background(), CompactOptions{})
	fmt.Fprintln(os.Stderr, "compact returned:", err)
	os.Exit(3)
	return true
}

// TestKill9DuringCompaction kills a process while its summariser runs:
// the log loads, the compaction did not happen, nothing is lost, and the
// session can be compacted again.
func TestKill9DuringCompaction(t *testing.T) {
	dir := t.TempDir()
	s, err := session.Create(session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Provider: faux.New(faux.Text("a"), faux.Text("b")), Model: faux.Model(), Store: s})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"one", "two"} {
		if _, err := h.Prompt(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	path := s.Path()
	before := len(s.Context().Messages)
	s.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envHelper+"=compact", envPath+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "summarising" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child: %q %v %s", line, err, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()

	s2, err := session.Open(path, session.Options{})
	if err != nil {
		t.Fatalf("the log does not load after kill -9: %v", err)
	}
	defer s2.Close()
	c := s2.Context()
	if c.Compaction != "" || len(c.Messages) != before {
		t.Fatalf("after the kill: compaction %q, %d messages (want none, %d)", c.Compaction, len(c.Messages), before)
	}
	h2, err := New(Options{Provider: faux.New(), Model: faux.Model(), Store: s2,
		Summarizers: []compact.Summarizer{&scriptSummarizer{name: "s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h2.Compact(context.Background(), CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	if s2.Context().Compaction == "" {
		t.Fatal("the session could not be compacted after the kill")
	}
}
