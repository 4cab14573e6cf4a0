package harness

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// The soak: a long tool loop on a 16k window, run by a child process
// that is killed with SIGKILL half way and resumed by a second one. The
// children report every turn and every problem on stdout; the parent
// checks the log they leave.

const (
	envSoakTurns = "REIN_SOAK_TURNS"
	soakWindow   = 16_000
	soakGoal     = "Convert each file under src/legacy/ to the v2 API, keep src/legacy/registry.go compiling, and report the count."
)

// soakChild is the child side: it continues (or starts) the session at
// envPath and runs until the log holds envSoakTurns assistant turns.
func soakChild() {
	total, _ := strconv.Atoi(os.Getenv(envSoakTurns))
	path := os.Getenv(envPath)
	var s *session.Session
	var err error
	fresh := false
	if _, serr := os.Stat(path); serr == nil {
		s, err = session.Open(path, session.Options{})
	} else {
		s, err = session.Create(session.Options{Dir: path + ".d"})
		fresh = true
	}
	if err != nil {
		fmt.Println("problem: open:", err)
		os.Exit(2)
	}
	if fresh {
		fmt.Println("path", s.Path())
	}
	done := 0
	for _, e := range s.Entries() {
		if e.Type == session.TypeMessage && e.Message.Role == llm.RoleAssistant {
			done++
		}
	}
	var mu sync.Mutex
	step := done
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	model := faux.Model()
	model.ContextWindow, model.MaxOutput = soakWindow, 2_000
	reply := faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
		mu.Lock()
		defer mu.Unlock()
		if ok, why := compact.PairsIntact(req.Messages); !ok {
			say("problem: tool pair broken: %s", why)
		}
		if est := compact.Count(req.Messages, len(req.Messages), compact.FixedChars(req.System, req.Tools), 4).Tokens; est > soakWindow {
			say("problem: a request of %d tokens, over the %d window", est, soakWindow)
			return llm.Message{}, &llm.Error{Code: llm.CodeContextOverflow, Message: "prompt is too long"}
		}
		step++
		if step >= total {
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(fmt.Sprintf("converted %d files", step))}}, nil
		}
		// The model thinks aloud a little every turn, as models do.
		note := fmt.Sprintf("file %d: ", step) + strings.Repeat("checked the imports and the call sites before converting; ", 11)
		m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(note),
			llm.ToolCall(fmt.Sprintf("c%d", step), "read", fmt.Appendf(nil, `{"path":"src/legacy/f%04d.go"}`, step))}}
		if step%7 == 0 { // a parallel batch now and then
			m.Content = append(m.Content, llm.ToolCall(fmt.Sprintf("c%db", step), "read", fmt.Appendf(nil, `{"path":"src/legacy/g%04d.go"}`, step)))
		}
		return m, nil
	}}
	replies := make([]faux.Reply, total+1)
	for i := range replies {
		replies[i] = reply
	}
	// The summariser never writes the goal: the check must add it back.
	sum := &scriptSummarizer{name: "soak/s", reply: func(r compact.Request) (string, error) {
		return fmt.Sprintf("## Progress\nconverting src/legacy/, summary request of %d characters\n## Next\nthe next file", len(r.Prompt)), nil
	}}
	reg, err := tool.NewRegistry(bigReadOf(9000))
	if err != nil {
		say("problem: registry: %v", err)
		os.Exit(2)
	}
	h, err := New(Options{Provider: faux.New(replies...), Model: model, Store: s, Tools: reg,
		NoGuards: true, Stop: StopPolicy{MaxTurns: -1}, Summarizers: []compact.Summarizer{sum}})
	if err != nil {
		say("problem: new: %v", err)
		os.Exit(2)
	}
	h.Subscribe(func(_ context.Context, e Event) error {
		switch e.Type {
		case "turn_end":
			mu.Lock()
			say("turn %d", step)
			mu.Unlock()
		case EventContextNotice:
			say("notice: %s", e.Detail)
		}
		return nil
	})
	prompt := soakGoal
	if !fresh {
		prompt = "continue where you left off"
	}
	res, err := h.Prompt(context.Background(), prompt)
	if err != nil || res.Stop != StopCompleted {
		say("problem: the run ended: %v %s %s", err, res.Stop, res.Detail)
		os.Exit(3)
	}
	say("finished %d", step)
	s.Close()
	os.Exit(0)
}

// bigReadOf returns a read tool whose output is about n characters
// naming the file.
func bigReadOf(n int) *tool.Tool {
	return tool.MustNew("read", "reads a file", func(_ context.Context, _ *tool.Call, in readArgs) (tool.Result, error) {
		return tool.Text(strings.Repeat("content of "+in.Path+"\n", n/(12+len(in.Path)))), nil
	})
}

// soakResult is what a soak measured.
type soakResult struct {
	compactions, turns int
	wall               time.Duration
	maxRSSKB           int64
}

// runSoak runs total turns in two child processes, killing the first
// with SIGKILL after half of them, and checks the log.
func runSoak(t testing.TB, total, minCompactions int) soakResult {
	t.Helper()
	dir := t.TempDir()
	path := dir + "/soak"
	start := time.Now()
	var res soakResult
	var problems []string
	child := func(killAt int) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envHelper+"=soak", envPath+"="+path, envSoakTurns+"="+strconv.Itoa(total))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		killed, finished := false, false
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "problem: "):
				problems = append(problems, line)
			case strings.HasPrefix(line, "path "):
				// The first child created the session: the second opens it.
				if err := os.Symlink(strings.TrimPrefix(line, "path "), path); err != nil {
					t.Fatal(err)
				}
			case strings.HasPrefix(line, "finished "):
				finished = true
			case strings.HasPrefix(line, "turn "):
				n, _ := strconv.Atoi(strings.TrimPrefix(line, "turn "))
				if killAt > 0 && n >= killAt && !killed {
					killed = true
					if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		err = cmd.Wait()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.maxRSSKB = max(res.maxRSSKB, ru.Maxrss)
		}
		switch {
		case killAt > 0 && !killed:
			t.Fatalf("the first child ended before it was killed: %v\n%s\n%q", err, stderr.String(), problems)
		case killAt == 0 && (err != nil || !finished):
			t.Fatalf("the resumed child failed: %v\n%s\n%q", err, stderr.String(), problems)
		}
	}
	child(total / 2)
	child(0)
	res.wall = time.Since(start)
	if len(problems) > 0 {
		t.Fatalf("%d problems, first: %s", len(problems), problems[0])
	}
	s, err := session.Open(path, session.Options{})
	if err != nil {
		t.Fatalf("the log does not load: %v", err)
	}
	defer s.Close()
	for _, e := range s.Entries() {
		switch {
		case e.Type == session.TypeCompaction:
			res.compactions++
			if !strings.Contains(e.Summary, soakGoal) {
				t.Fatalf("compaction %d lost the goal:\n%s", res.compactions, e.Summary)
			}
		case e.Type == session.TypeMessage && e.Message.Role == llm.RoleAssistant:
			res.turns++
		}
	}
	if ok, why := compact.PairsIntact(s.Context().Messages); !ok {
		t.Fatalf("the resumed context breaks a tool pair: %s", why)
	}
	if res.turns < total || res.compactions < minCompactions {
		t.Fatalf("%d turns, %d compactions; want %d and at least %d", res.turns, res.compactions, total, minCompactions)
	}
	return res
}

// TestSoakKilledAndResumed is the short soak: 160 turns of large tool
// output on a 16k window, killed with SIGKILL half way and resumed. See
// BenchmarkSoak for the full one.
func TestSoakKilledAndResumed(t *testing.T) {
	r := runSoak(t, 160, 3)
	t.Logf("%d turns, %d compactions", r.turns, r.compactions)
}

// BenchmarkSoak is the full soak: 520 turns, at least 10 compactions, a
// SIGKILL and a resume; it reports the wall time and the children's
// peak memory.
func BenchmarkSoak(b *testing.B) {
	for range b.N {
		r := runSoak(b, 520, 10)
		b.ReportMetric(r.wall.Seconds(), "wall-s")
		b.ReportMetric(float64(r.maxRSSKB)/1024, "peak-rss-MB")
		b.ReportMetric(float64(r.compactions), "compactions")
	}
}
