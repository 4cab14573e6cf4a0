package prompt

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// claudeCode returns the Claude Code program the compatibility tests run
// (interop/testdata/npm, installed by .ci/run), or skips when REIN_PEERS is not
// set. With REIN_PEERS=1 a missing program fails the test.
func claudeCode(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("REIN_CLAUDE_CODE")
	if bin == "" {
		bin, _ = filepath.Abs(filepath.Join("..", "interop", "testdata", "npm", "node_modules", ".bin", "claude"))
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("REIN_PEERS") == "1" {
			t.Fatalf("REIN_PEERS=1 but Claude Code is not installed at %s: run npm ci in interop/testdata/npm", bin)
		}
		t.Skip("Claude Code is not installed (interop/testdata/npm); .ci/run installs it and sets REIN_PEERS=1")
	}
	return bin
}

// anthropicMock answers every Messages request with a short text reply
// and keeps the request bodies.
type anthropicMock struct {
	mu       sync.Mutex
	requests []map[string]any
}

func (m *anthropicMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") {
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, "{}")
		return
	}
	var req map[string]any
	json.Unmarshal(body, &req)
	if strings.Contains(r.URL.Path, "count_tokens") {
		io.WriteString(w, `{"input_tokens": 10}`)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	model, _ := req["model"].(string)
	if stream, _ := req["stream"].(bool); !stream {
		w.Header().Set("content-type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`, model)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	for _, ev := range []string{
		`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"` + model + `","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`,
		`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"DONE"}}`,
		`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
		`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`,
		`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
	} {
		io.WriteString(w, ev+"\n\n")
	}
}

// userTexts returns the text blocks of the first request's first user
// message, the place Claude Code puts its context files and commands.
func (m *anthropicMock) userTexts(t *testing.T) []string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, req := range m.requests {
		msgs, _ := req["messages"].([]any)
		if len(msgs) == 0 {
			continue
		}
		var out []string
		for _, msg := range msgs {
			mm, _ := msg.(map[string]any)
			if mm["role"] != "user" {
				continue
			}
			switch c := mm["content"].(type) {
			case string:
				out = append(out, c)
			case []any:
				for _, b := range c {
					bm, _ := b.(map[string]any)
					if s, ok := bm["text"].(string); ok {
						out = append(out, s)
					}
				}
			}
		}
		return out
	}
	t.Fatal("Claude Code sent no Messages request")
	return nil
}

// runClaudeCode runs `claude -p prompt` in dir with home as HOME against
// the mock, trusting the repository at gitRoot (and its imports, as a
// user who answered Claude Code's questions once would).
func runClaudeCode(t *testing.T, bin, dir, home, gitRoot, prompt string) *anthropicMock {
	t.Helper()
	trust := map[string]any{"hasTrustDialogAccepted": true, "hasClaudeMdExternalIncludesApproved": true, "hasClaudeMdExternalIncludesWarningShown": true}
	cfg, _ := json.Marshal(map[string]any{"projects": map[string]any{gitRoot: trust, dir: trust}, "hasCompletedOnboarding": true})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	mock := &anthropicMock{}
	srv := httptest.NewServer(mock)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", prompt, "--output-format", "json")
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-ant-test",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out)
	}
	return mock
}

var contentsOf = regexp.MustCompile(`(?m)^Contents of (\S+) \([^)\n]*\):\n\n`)

// claudeContextFiles parses Claude Code's context block into path → text
// pairs, in order.
func claudeContextFiles(block string) []string {
	block, _, _ = strings.Cut(block, "\n</system-reminder>")
	locs := contentsOf.FindAllStringSubmatchIndex(block, -1)
	var out []string
	for i, l := range locs {
		end := len(block)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out = append(out, block[l[2]:l[3]]+": "+strings.TrimSpace(block[l[1]:end]))
	}
	return out
}

// TestClaudeCodeReadsTheSameContextFiles runs the real Claude Code and
// rein's discovery on one workspace, from its root and from a subfolder,
// and compares the context files and their texts, in order.
func TestClaudeCodeReadsTheSameContextFiles(t *testing.T) {
	bin := claudeCode(t)
	root, o := claudeFamily(t)
	// Several rules in one folder and below it: both read them in the
	// order the filesystem lists them.
	for _, p := range []string{"repo/.claude/rules/zz.md", "repo/.claude/rules/m/b.md", "repo/.claude/rules/b0.md", "home/.claude/rules/a.md"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		if err := os.WriteFile(filepath.Join(root, p), []byte("rule "+p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Files Claude Code does not read by themselves stay out of this
	// workspace: rein's global AGENTS.md and an AGENTS.md nobody imports.
	for _, launch := range []string{"repo", "repo/sub"} {
		t.Run(launch, func(t *testing.T) {
			dir := filepath.Join(root, launch)
			mock := runClaudeCode(t, bin, dir, o.Home, filepath.Join(root, "repo"), "hi")
			var block string
			for _, s := range mock.userTexts(t) {
				if strings.Contains(s, "Contents of ") {
					block = s
					break
				}
			}
			theirs := claudeContextFiles(block)
			o := o
			o.Cwd = dir
			var ours []string
			for _, c := range Discover(o).ContextFiles {
				if strings.HasPrefix(c.Path, root) || strings.HasPrefix(c.Path, o.Home) {
					ours = append(ours, c.Path+": "+strings.TrimSpace(c.Text))
				}
			}
			// Keep Claude Code's files from the same tree (a stray
			// /tmp/CLAUDE.md would be read by both).
			var mine []string
			for _, s := range theirs {
				if strings.HasPrefix(s, root) {
					mine = append(mine, s)
				}
			}
			if diff := cmp.Diff(mine, ours); diff != "" {
				t.Fatalf("context files (-claude +rein):\n%s\nClaude Code's block:\n%s", diff, block)
			}
		})
	}
}

// TestClaudeCodeExpandsCommandsTheSame runs custom commands and a skill
// through the real Claude Code and through Invoke, and compares the
// prompt text that reaches the model.
func TestClaudeCodeExpandsCommandsTheSame(t *testing.T) {
	bin := claudeCode(t)
	root := tree(t, map[string]string{
		"repo/.git/":                             "",
		"repo/.claude/commands/greet.md":         "---\ndescription: greet\nargument-hint: NAME\n---\nHello $ARGUMENTS / zero=$0 one=$1 two=$2 arr=$ARGUMENTS[0] arr1=$ARGUMENTS[1] end\n",
		"repo/.claude/commands/dir/nest.md":      "nested cmd $ARGUMENTS\n",
		"repo/.claude/commands/plain.md":         "Plain body no placeholders\n",
		"repo/.claude/skills/myskill/SKILL.md":   "---\nname: myskill\ndescription: does things\n---\nSkill body args=$ARGUMENTS zero=$0\n",
		"home/.claude/commands/mine.md":          "user command $0 and $ARGUMENTS\n",
		"home/.claude/skills/userskill/SKILL.md": "---\nname: userskill\ndescription: a user skill\n---\nUser skill $ARGUMENTS\n",
	})
	repo, home := filepath.Join(root, "repo"), filepath.Join(root, "home")
	f := Discover(DiscoverOptions{Workspace: repo, ConfigDir: "-", Home: home, Getenv: func(string) string { return "" }})
	for _, line := range []string{`/greet alice "bob smith"`, "/dir:nest x y", "/plain some args here", "/myskill a b", "/mine p q", "/userskill z"} {
		t.Run(line, func(t *testing.T) {
			mock := runClaudeCode(t, bin, repo, home, repo, line)
			var theirs string
			for _, s := range mock.userTexts(t) {
				if !strings.HasPrefix(s, "<system-reminder>") && !strings.HasPrefix(s, "<command-") {
					theirs = s
					break
				}
			}
			inv, ok := f.Invoke(line)
			if !ok {
				t.Fatalf("rein does not resolve %s", line)
			}
			if inv.Text != theirs {
				t.Fatalf("%s:\nclaude %q\nrein   %q", line, theirs, inv.Text)
			}
		})
	}
}
