package subagent

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
)

// claudeCode returns the Claude Code program (interop/testdata/npm,
// installed by .ci/run; REIN_CLAUDE_CODE overrides), or skips when
// REIN_PEERS is not set. With REIN_PEERS=1 a missing program fails.
func claudeCode(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("REIN_CLAUDE_CODE")
	if bin == "" {
		bin, _ = filepath.Abs(filepath.Join("..", "interop", "testdata", "npm", "node_modules", ".bin", "claude"))
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("REIN_PEERS") == "1" {
			t.Fatalf("REIN_PEERS=1 but Claude Code is not installed at %s", bin)
		}
		t.Skip("Claude Code is not installed (interop/testdata/npm); .ci/run installs it and sets REIN_PEERS=1")
	}
	return bin
}

// messagesMock answers Anthropic Messages requests with "ok" and keeps
// every string of every request body.
type messagesMock struct {
	mu      sync.Mutex
	strings []string
}

func (m *messagesMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("content-type", "application/json")
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") {
		io.WriteString(w, "{}")
		return
	}
	if strings.Contains(r.URL.Path, "count_tokens") {
		io.WriteString(w, `{"input_tokens": 10}`)
		return
	}
	var req any
	json.Unmarshal(body, &req)
	m.mu.Lock()
	collect(req, &m.strings)
	m.mu.Unlock()
	model := "claude"
	if mm, ok := req.(map[string]any); ok {
		model, _ = mm["model"].(string)
		if stream, _ := mm["stream"].(bool); stream {
			w.Header().Set("content-type", "text/event-stream")
			for _, ev := range []string{
				`message_start`, `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"` + model + `","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`,
				`content_block_start`, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				`content_block_delta`, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`,
				`content_block_stop`, `{"type":"content_block_stop","index":0}`,
				`message_delta`, `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`,
				`message_stop`, `{"type":"message_stop"}`,
			} {
				if strings.HasPrefix(ev, "{") {
					fmt.Fprintf(w, "data: %s\n\n", ev)
				} else {
					fmt.Fprintf(w, "event: %s\n", ev)
				}
			}
			return
		}
	}
	fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`, model)
}

func collect(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case []any:
		for _, x := range v {
			collect(x, out)
		}
	case map[string]any:
		for _, x := range v {
			collect(x, out)
		}
	}
}

var agentListLine = regexp.MustCompile(`(?m)^- (.+?): (.*) \(Tools: `)

// TestClaudeCodeReadsTheSameAgents runs the real Claude Code on a
// workspace and a home holding agent files, reads the agent types it
// offers its model, and compares them with rein's catalog: the same
// files load, with the same descriptions, and the project's definition
// beats the user's. rein's deliberate differences are listed.
func TestClaudeCodeReadsTheSameAgents(t *testing.T) {
	bin := claudeCode(t)
	ws, home := t.TempDir(), t.TempDir()
	files := map[string]string{
		".claude/agents/reviewer.md":   "---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep\nmodel: haiku\n---\nYou review.\n",
		".claude/agents/listtools.md":  "---\nname: listtools\ndescription: List of tools.\ntools:\n  - Read\n  - Bash\nflavour: mint\n---\nx\n",
		".claude/agents/colon.md":      "---\nname: colon\ndescription: Use it when: the tests fail\n---\nx\n",
		".claude/agents/space.md":      "---\nname: has space\ndescription: Spaced.\n---\nx\n",
		".claude/agents/upper.md":      "---\nname: Upper-Case\ndescription: Upper.\n---\nx\n",
		".claude/agents/sub/nested.md": "---\nname: nested\ndescription: In a subfolder.\n---\nx\n",
		".claude/agents/nodesc.md":     "---\nname: nodesc\n---\nx\n",
		".claude/agents/noname.md":     "---\ndescription: No name.\n---\nx\n",
		".claude/agents/plain.md":      "no front matter\n",
		".claude/agents/unclosed.md":   "---\nname: unclosed\ndescription: Unclosed.\n",
		".claude/agents/turns.md":      "---\nname: turns\ndescription: Turns.\nmaxTurns: -1\n---\nx\n",
		".claude/agents/mode.md":       "---\nname: mode\ndescription: Mode.\npermissionMode: yolo\n---\nx\n",
		"home/.claude/agents/r.md":     "---\nname: reviewer\ndescription: The user's reviewer.\n---\nx\n",
		"home/.claude/agents/mine.md":  "---\nname: mine\ndescription: Mine.\n---\nx\n",
	}
	for p, text := range files {
		full := filepath.Join(ws, p)
		if rest, ok := strings.CutPrefix(p, "home/"); ok {
			full = filepath.Join(home, rest)
		}
		write(t, full, text)
	}
	// What rein leaves out on purpose: values it cannot honour are
	// refused rather than ignored (Claude Code loads these).
	deliberate := map[string]string{"turns": "maxTurns is -1", "mode": `permissionMode "yolo"`}
	names := []string{"reviewer", "listtools", "colon", "has space", "Upper-Case", "nested", "nodesc", "unclosed", "turns", "mode", "mine"}

	trust := map[string]any{"hasTrustDialogAccepted": true}
	cfg, _ := json.Marshal(map[string]any{"projects": map[string]any{ws: trust}, "hasCompletedOnboarding": true})
	write(t, filepath.Join(home, ".claude.json"), string(cfg))
	mock := &messagesMock{}
	srv := httptest.NewServer(mock)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", "hi", "--output-format", "json")
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-ant-test",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out)
	}
	theirs := map[string]string{}
	mock.mu.Lock()
	for _, s := range mock.strings {
		for _, m := range agentListLine.FindAllStringSubmatch(s, -1) {
			theirs[m[1]] = strings.TrimSpace(m[2])
		}
	}
	mock.mu.Unlock()
	if len(theirs) == 0 {
		t.Fatal("Claude Code's requests list no agent types")
	}

	c, err := Discover(DiscoverOptions{Workdir: ws, Home: home, ConfigDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		desc, inTheirs := theirs[name]
		d, inOurs := c.Lookup(name)
		if inOurs && d.Name != name {
			inOurs = false // found by case only
		}
		if why, ok := deliberate[name]; ok {
			if !inTheirs || inOurs || !strings.Contains(strings.Join(c.Notes(), "\n"), why) {
				t.Errorf("%s: Claude Code loads it (%v), rein should skip it saying %q (loaded %v)", name, inTheirs, why, inOurs)
			}
			continue
		}
		switch {
		case inTheirs != inOurs:
			t.Errorf("%s: Claude Code loads it: %v, rein: %v (skipped %v)", name, inTheirs, inOurs, c.Skipped)
		case inOurs && desc != d.Description:
			t.Errorf("%s: description %q in Claude Code, %q in rein", name, desc, d.Description)
		}
	}
}
