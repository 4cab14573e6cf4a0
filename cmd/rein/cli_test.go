package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/session"
)

// runCLIEnv runs rein with args on an env that mod may change first.
func runCLIEnv(t *testing.T, stdin string, mod func(*env), args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	if mod != nil {
		mod(e)
	}
	code := execute(context.Background(), e, args)
	return code, out.String(), errOut.String()
}

func piped(e *env) { e.piped = true }

// chatServer answers OpenAI chat completion requests with a text reply,
// records the request bodies and counts them.
type chatServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newChatServer(t *testing.T, reply string) *chatServer {
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(b))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%q},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", reply)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func TestPrintFlagIsRun(t *testing.T) {
	script := writeScript(t, t.TempDir(), `{"text": "Done."}`+"\n")
	for _, flag := range []string{"-p", "--print"} {
		code, out, errOut := runCLIEnv(t, "", piped, flag, "--model", "faux", "--script", script, "-C", t.TempDir(), "go")
		if code != 0 || out != "Done.\n" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", flag, code, out, errOut)
		}
	}
	code, out, _ := runCLIEnv(t, "", piped, "-p", "--model", "faux", "--script", script, "-C", t.TempDir(), "--output-format", "json", "go")
	var r result
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Text != "Done." {
		t.Fatalf("--output-format json: exit %d, %q", code, out)
	}
}

func TestUnknownCommandAndNoArgs(t *testing.T) {
	code, _, errOut := runCLI(t, "", "summarise", "this")
	if code != 2 || !strings.Contains(errOut, `rein -p "summarise this"`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "sesions", "list")
	if code != 2 || !strings.Contains(errOut, "did you mean rein sessions?") {
		t.Fatalf("typo: exit %d, stderr %q", code, errOut)
	}
	// Not on a terminal and no command: the help.
	code, out, _ := runCLI(t, "")
	if code != 0 || !strings.Contains(out, "rein -p PROMPT") {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
}

func TestVersionFlagAndCompletionInHelp(t *testing.T) {
	code, out, _ := runCLI(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "rein ") {
		t.Fatalf("--version: %d %q", code, out)
	}
	_, out, _ = runCLI(t, "", "--help")
	for _, want := range []string{"completion", "--print", "--continue", "--resume", "--system-prompt", "--append-system-prompt", "--request-timeout", "--idle-timeout", "--output-format", "--version"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %s", want)
		}
	}
	code, out, _ = runCLI(t, "", "completion", "bash")
	if code != 0 || !strings.Contains(out, "bash completion") {
		t.Fatalf("completion bash: %d", code)
	}
}

func TestContinueAndResume(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "One."}`+"\n"+`{"text": "Two."}`+"\n"+`{"text": "Three."}`+"\n")
	run := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLIEnv(t, "", piped, append([]string{"--model", "faux", "--script", script, "-C", dir}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	run("-p", "first")
	infos, _ := session.List(session.DefaultDir(dir))
	if len(infos) != 1 {
		t.Fatalf("%d sessions", len(infos))
	}
	// The faux script restarts in each process; the session is what
	// carries over.
	run("-c", "-p", "second")
	run("--resume", infos[0].ID[:8], "-p", "third")
	infos, _ = session.List(session.DefaultDir(dir))
	if len(infos) != 1 || infos[0].Messages != 6 {
		t.Fatalf("after -c and --resume: %+v", infos)
	}
	code, _, errOut := runCLI(t, "", "-c", "--resume", "x", "-p", "hi", "-C", dir)
	if code != 2 || !strings.Contains(errOut, "both") {
		t.Fatalf("-c with --resume: %d %q", code, errOut)
	}
	// run accepts them too.
	code, _, errOut = runCLIEnv(t, "", piped, "run", "-c", "--model", "faux", "--script", script, "-C", dir, "fourth")
	if code != 0 {
		t.Fatalf("run -c: %d %s", code, errOut)
	}
}

func TestSystemPromptFlags(t *testing.T) {
	srv := newChatServer(t, "ok")
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "extra.md")
	os.WriteFile(file, []byte("ALWAYS ANSWER IN HAIKU"), 0o644)
	code, _, errOut := runCLI(t, "", "-p", "-m", "openai/m", "--base-url", srv.URL+"/v1", "-C", dir, "--system-prompt", "YOU ARE A TEST", "hi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "-p", "-m", "openai/m", "--base-url", srv.URL+"/v1", "-C", dir, "--append-system-prompt", "@"+file, "hi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !strings.Contains(reqs[0], "YOU ARE A TEST") || strings.Contains(reqs[0], "You are rein") {
		t.Errorf("--system-prompt did not replace the prompt: %s", reqs[0])
	}
	if !strings.Contains(reqs[1], "ALWAYS ANSWER IN HAIKU") || !strings.Contains(reqs[1], "You are rein") {
		t.Errorf("--append-system-prompt did not append: %s", reqs[1])
	}
	b := prompt.NewBuilder(prompt.Options{Found: &prompt.Found{}, Append: "b", Volatile: func(prompt.Turn) string { return "date" }})
	parts, _ := b.System(context.Background(), prompt.Turn{})
	if len(parts) != 4 || parts[2].Text != "b" || parts[2].Volatile || !parts[3].Volatile {
		t.Errorf("append goes after the session tier and before the volatile part: %+v", parts)
	}
	code, _, errOut = runCLI(t, "", "-p", "-m", "faux", "--system-prompt", "@/no/such/file", "hi")
	if code != 2 || !strings.Contains(errOut, "--system-prompt") {
		t.Errorf("missing @file: %d %q", code, errOut)
	}
}

func TestPipedStdinIsAppended(t *testing.T) {
	script := writeScript(t, t.TempDir(), `{"text": "Summary."}`+"\n")
	code, out, errOut := runCLI(t, "line one\nline two\n", "-p", "-m", "faux", "--script", script, "-C", t.TempDir(), "-o", "json", "summarise this")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r result
	json.Unmarshal([]byte(out), &r)
	if got := r.Messages[0].Text(); got != "summarise this\n\n```\nline one\nline two\n```" {
		t.Fatalf("prompt = %q", got)
	}
	big := strings.Repeat("x", coding.MaxPipedInput+1000)
	code, out, _ = runCLI(t, big, "-p", "-m", "faux", "--script", script, "-C", t.TempDir(), "-o", "json", "count")
	json.Unmarshal([]byte(out), &r)
	got := r.Messages[0].Text()
	if code != 0 || len(got) > coding.MaxPipedInput+200 || !strings.Contains(got, fmt.Sprintf("cut to its first %d of %d bytes", coding.MaxPipedInput, len(big))) {
		t.Fatalf("exit %d, prompt of %d bytes ending %q", code, len(got), got[max(0, len(got)-120):])
	}
}

func TestEmptyPromptIsAUsageError(t *testing.T) {
	for _, args := range [][]string{{"run", ""}, {"-p", "  "}, {"run"}, {"-p"}} {
		code, _, errOut := runCLI(t, "", append(args, "-m", "faux", "--script", "x")...)
		if code != 2 || !strings.Contains(errOut, "no prompt") {
			t.Errorf("%q: exit %d, %q", args, code, errOut)
		}
	}
}

func TestProjectRootAndGitignore(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	if got := coding.ProjectRoot(sub, ""); got != root {
		t.Fatalf("projectRoot = %s, want %s", got, root)
	}
	if got := coding.ProjectRoot(sub, filepath.Join(root, "a")); got != sub {
		t.Fatalf("the search must stop below home: %s", got)
	}
	script := writeScript(t, t.TempDir(), `{"text": "ok"}`+"\n")
	t.Chdir(sub)
	code, _, errOut := runCLI(t, "", "-p", "-m", "faux", "--script", script, "hi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(sub, ".rein")); err == nil {
		t.Fatal("a second .rein/ was made in the subdirectory")
	}
	infos, _ := session.List(session.DefaultDir(root))
	if len(infos) != 1 {
		t.Fatalf("no session at the project root")
	}
	gi, err := os.ReadFile(filepath.Join(root, ".rein", ".gitignore"))
	if err != nil || !strings.Contains(string(gi), "sessions/") || !strings.Contains(string(gi), "output/") {
		t.Fatalf(".gitignore: %v %q", err, gi)
	}
	// A .gitignore the user changed is kept.
	os.WriteFile(filepath.Join(root, ".rein", ".gitignore"), []byte("mine\n"), 0o644)
	runCLI(t, "", "-p", "-m", "faux", "--script", script, "hi")
	if gi, _ := os.ReadFile(filepath.Join(root, ".rein", ".gitignore")); string(gi) != "mine\n" {
		t.Fatalf(".gitignore overwritten: %q", gi)
	}
	// sessions list from the subdirectory finds the root's sessions.
	code, out, _ := runCLI(t, "", "sessions", "list")
	if code != 0 || strings.Contains(out, "no sessions") {
		t.Fatalf("sessions list from a subdirectory: %d %q", code, out)
	}
}

func TestFailedRunKeepsStdoutClean(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644)
	script := writeScript(t, t.TempDir(), readScript)
	code, out, errOut := runCLIEnv(t, "", piped, "-p", "-m", "faux", "--script", script, "-C", dir, "--max-turns", "1", "go")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q (want empty), stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "Reading.") || !strings.Contains(errOut, "after 1 turn (") {
		t.Fatalf("stderr %q", errOut)
	}
	code, out, _ = runCLIEnv(t, "", piped, "-p", "-m", "faux", "--script", script, "-C", dir, "--max-turns", "1", "-o", "json", "go")
	var r result
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 || r.Text != "" || r.PartialText != "Reading." || r.Stop != "max_turns" {
		t.Fatalf("json: exit %d, %+v (%v)", code, r, err)
	}
	// A reply cut by an error mid-run.
	fail := writeScript(t, t.TempDir(), `{"text": "Half", "tool_calls": [{"name": "ls", "arguments": {}}]}`+"\n"+`{"error": {"code": "server_error", "message": "stream cut"}}`+"\n")
	code, out, errOut = runCLIEnv(t, "", piped, "-p", "-m", "faux", "--script", fail, "-C", dir, "go")
	if code != 1 || out != "" || !strings.Contains(errOut, "stream cut") {
		t.Fatalf("cut stream: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestStrictPrintsWorkCompleteSummary(t *testing.T) {
	script := writeScript(t, t.TempDir(), `{"tool_calls": [{"name": "work_complete", "arguments": {"summary": "Fixed the bug; tests pass."}}]}`+"\n")
	code, out, errOut := runCLIEnv(t, "", piped, "-p", "--strict", "-m", "faux", "--script", script, "-C", t.TempDir(), "fix it")
	if code != 0 || out != "Fixed the bug; tests pass.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "-p", "--strict", "-m", "faux", "--script", script, "-C", t.TempDir(), "-o", "json", "fix it")
	var r result
	if json.Unmarshal([]byte(out), &r) != nil || code != 0 || r.Text != "Fixed the bug; tests pass." {
		t.Fatalf("json: %d %+v", code, r)
	}
	// On a terminal the summary, not shown by the stream, is printed too.
	code, out, _ = runCLI(t, "", "-p", "--strict", "-m", "faux", "--script", script, "-C", t.TempDir(), "fix it")
	if code != 0 || !strings.Contains(out, "Fixed the bug; tests pass.") {
		t.Fatalf("terminal: %d %q", code, out)
	}
}

func TestSessionsListShowsUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	sd := session.DefaultDir(dir)
	os.MkdirAll(sd, 0o755)
	os.WriteFile(filepath.Join(sd, "empty.jsonl"), nil, 0o644)
	os.WriteFile(filepath.Join(sd, "junk.jsonl"), []byte(`{"type":"message"}`+"\n"), 0o644)
	code, out, _ := runCLI(t, "", "sessions", "list", "-C", dir)
	if code != 0 || !strings.Contains(out, "empty.jsonl: empty file") || !strings.Contains(out, "junk.jsonl: not a session") {
		t.Fatalf("exit %d, %q", code, out)
	}
}

func TestSessionsShowDefaultsToLast(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "Answer."}`+"\n")
	runCLI(t, "", "-p", "-m", "faux", "--script", script, "-C", dir, "the question")
	code, out, errOut := runCLI(t, "", "sessions", "show", "-C", dir)
	if code != 0 || !strings.Contains(out, "the question") || !strings.Contains(out, "Answer.") {
		t.Fatalf("exit %d, %q %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "", "sessions", "show", "-C", t.TempDir())
	if code != 2 || !strings.Contains(errOut, "no sessions in") {
		t.Fatalf("no sessions: exit %d, %q", code, errOut)
	}
}

func TestSessionsListPluralIssues(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "Answer."}`+"\n")
	runCLI(t, "", "-p", "-m", "faux", "--script", script, "-C", dir, "q")
	infos, _ := session.List(session.DefaultDir(dir))
	f, _ := os.OpenFile(infos[0].Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n")
	f.Close()
	_, out, _ := runCLI(t, "", "sessions", "list", "-C", dir)
	if !strings.Contains(out, "[1 issue]") {
		t.Fatalf("%q", out)
	}
}

func TestModelsListsAliases(t *testing.T) {
	code, out, _ := runCLI(t, "", "models", "-C", t.TempDir())
	if code != 0 || !strings.Contains(out, "Aliases") || !strings.Contains(out, "sonnet") || !strings.Contains(out, "anthropic/claude-sonnet-5-5") {
		t.Fatalf("%d %q", code, out)
	}
	_, out, _ = runCLI(t, "", "models", "-C", t.TempDir(), "gemini")
	if !strings.Contains(out, "flash") || strings.Contains(out, "sonnet ") {
		t.Fatalf("aliases of gemini: %q", out)
	}
}

func TestGuardReplaySkipsEmptyFile(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	ok := filepath.Join(dir, "ok.jsonl")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(ok, []byte(`{"turn": 1, "tool": "bash", "args": {"command": "ls"}, "result": "x"}`+"\n"), 0o644)
	code, out, errOut := runCLI(t, "", "guard", "replay", empty, ok)
	if code != 0 || !strings.Contains(out, "ok.jsonl") || !strings.Contains(errOut, "empty.jsonl is empty") {
		t.Fatalf("exit %d, %q %q", code, out, errOut)
	}
}

func TestInterruptedRunKeepsStdoutClean(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"partial words\"},\"finish_reason\":null}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop)
	var out, errOut syncBuffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }, piped: true}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// What SIGTERM does: cancel the command once the reply started.
		// (The redactor holds back the unfinished last word until the
		// stream ends, so only the first one shows before that.)
		for !strings.Contains(errOut.String(), "partial") {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	code := execute(ctx, e, []string{"-p", "-m", "openai/m", "--base-url", srv.URL + "/v1", "-C", t.TempDir(), "hi"})
	if code != 130 || out.String() != "" || !strings.Contains(errOut.String(), "partial words") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
