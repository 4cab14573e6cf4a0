package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/reinhq/rein/session"
)

// twoPromptSession makes a session of two prompts in a fresh workspace.
func twoPromptSession(t *testing.T) (ws, path string) {
	t.Helper()
	ws = t.TempDir()
	for _, p := range []string{"first prompt: convert src/a.go", "second prompt"} {
		script := writeScript(t, t.TempDir(), `{"text": "done"}`+"\n")
		args := []string{"run", "-m", "faux", "--script", script, "-C", ws}
		if p != "first prompt: convert src/a.go" {
			args = append(args, "-c")
		}
		if code, _, errOut := runCLI(t, "", append(args, p)...); code != 0 {
			t.Fatalf("%s: %d %s", p, code, errOut)
		}
	}
	return ws, latestSession(t, ws)
}

// TestSessionsCompactDigestNoticeOnce: when the summariser gives nothing
// usable, rein sessions compact says once that a digest stands in, and
// why.
func TestSessionsCompactDigestNoticeOnce(t *testing.T) {
	ws, path := twoPromptSession(t)
	script := writeScript(t, t.TempDir(), `{"text": ""}`+"\n")
	code, out, errOut := runCLI(t, "", "sessions", "compact", "-m", "faux", "--script", script, "-C", ws, path)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if n := strings.Count(out+errOut, "digest built without a model"); n != 1 {
		t.Fatalf("the digest notice appears %d times:\n%s%s", n, out, errOut)
	}
	if !strings.Contains(out, "the summariser returned nothing") {
		t.Fatalf("the notice does not say why:\n%s", out)
	}
}

// TestCorruptCompactionEntry: a compaction line that is not valid JSON,
// or one without a summary, is reported as file:line on resume, and the
// session opens from the last good entry: the conversation before it.
func TestCorruptCompactionEntry(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, kind string
	}{
		{"not json", `"summary":"`, `"summary":{"`, "corrupt_line"},
		{"no summary", `"summary":"`, `"summary":"","was":"`, "bad_compaction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, path := twoPromptSession(t)
			sum := writeScript(t, t.TempDir(), `{"text": "## Goal\nfirst prompt: convert src/a.go\n## Progress\ndone"}`+"\n")
			if code, out, errOut := runCLI(t, "", "sessions", "compact", "-m", "faux", "--script", sum, "-C", ws, path); code != 0 {
				t.Fatalf("compact: %d %s %s", code, out, errOut)
			}
			data := readFile(t, path)
			lines := strings.Split(data, "\n")
			line := -1
			for i, l := range lines {
				if strings.Contains(l, `"type":"compaction"`) {
					line = i
					lines[i] = strings.Replace(l, tc.from, tc.to, 1)
				}
			}
			if line < 0 {
				t.Fatal("no compaction line")
			}
			if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
				t.Fatal(err)
			}
			script := writeScript(t, t.TempDir(), `{"text": "still here"}`+"\n")
			code, out, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", ws, "-c", "third prompt")
			if code != 0 || !strings.Contains(out, "still here") {
				t.Fatalf("resume: %d %s %s", code, out, errOut)
			}
			want := path + ":" + strconv.Itoa(line+1) + ": " + tc.kind
			if !strings.Contains(errOut, want) {
				t.Fatalf("stderr does not report %q:\n%s", want, errOut)
			}
			_, entries, _, err := session.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c := session.BuildContext(entries, session.LastLeaf(entries))
			if c.Compaction != "" || len(c.Messages) != 6 || c.Messages[0].Text() != "first prompt: convert src/a.go" {
				t.Fatalf("context after the bad compaction: compaction %q, %d messages", c.Compaction, len(c.Messages))
			}
		})
	}
}
