package long

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// step is what the scripted model sees of a request: the task of the
// session, how many replies it gave in this session so far, and the last
// message (the prompt or a tool result).
type step struct {
	task  string
	n     int
	last  llm.Message
	first string // the session's prompt
}

var taskRE = regexp.MustCompile(`Your task: (\S+) `)

// model is a scripted model: act decides each reply. It serves up to
// max requests.
func model(max int, act func(s step) llm.Message) *faux.Provider {
	replies := make([]faux.Reply, max)
	for i := range replies {
		replies[i] = faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
			s := step{last: req.Messages[len(req.Messages)-1]}
			for _, m := range req.Messages {
				switch m.Role {
				case llm.RoleUser:
					if s.first == "" {
						s.first = m.Text()
					}
				case llm.RoleAssistant:
					s.n++
				}
			}
			if m := taskRE.FindStringSubmatch(s.first); m != nil {
				s.task = m[1]
			}
			return act(s), nil
		}}
	}
	return faux.New(replies...)
}

func calls(cs ...llm.Content) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: cs}
}

func text(s string) llm.Message { return calls(llm.Text(s)) }

func call(name string, args any) llm.Content {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return faux.Call(name, string(b))
}

func bash(cmd string) llm.Content { return call("bash", map[string]string{"command": cmd}) }

// fixture is a git repository with a plan.
type fixture struct {
	t    testing.TB
	dir  string
	home string
	mu   sync.Mutex
	reps []SessionReport
}

func newFixture(t testing.TB, plan string) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir(), home: t.TempDir()}
	f.git("init", "--quiet", "-b", "main")
	f.git("config", "user.name", "Test")
	f.git("config", "user.email", "test@example.com")
	f.write("README.md", "# fixture\n")
	if plan != "" {
		f.write("agent-progress.json", plan)
		f.write("agent-notes.md", "# Notes\n\nThe fixture's goal is five files.\n")
		f.write("workspace.sh", "#!/bin/bash\necho ready\n")
	}
	f.git("add", "-A")
	f.git("commit", "--quiet", "-m", "start")
	return f
}

func (f *fixture) write(name, body string) {
	f.t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", f.dir}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+f.home, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// options opens sessions of the fixture with model p.
func (f *fixture) options(p llm.Provider) Options {
	env := []string{"HOME=" + f.home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
	vars := map[string]string{"HOME": f.home, "XDG_CONFIG_HOME": filepath.Join(f.home, ".config"), "PATH": os.Getenv("PATH")}
	return Options{
		Agent: coding.Options{Workdir: f.dir, Provider: p, ModelInfo: faux.Model(), NoRunRecords: true, PermissionMode: "auto_all",
			Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return env }},
		Report: func(r SessionReport) {
			f.mu.Lock()
			f.reps = append(f.reps, r)
			f.mu.Unlock()
		},
	}
}

func (f *fixture) load() *Plan {
	f.t.Helper()
	p, err := NewStore(f.dir, DefaultLayout(PresetRein)).Load()
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// planOf writes a plan of n tasks t1…tn whose verify commands check that
// tN.txt holds "done"; verify overrides the commands of some tasks.
func planOf(n int, verify map[string]string) string {
	var tasks []string
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("t%d", i)
		v := fmt.Sprintf(`["test -f %s.txt", "grep -qx done %s.txt"]`, id, id)
		if o, ok := verify[id]; ok {
			v = o
		}
		tasks = append(tasks, fmt.Sprintf(`  {"id": %q, "title": "write %s.txt", "acceptance_criteria": ["%s.txt holds done"], "verify": %s, "status": "todo"}`, id, id, id, v))
	}
	return "[\n" + strings.Join(tasks, ",\n") + "\n]\n"
}

// diligent does each task in two replies: write the file and commit it,
// then say so.
func diligent(s step) llm.Message {
	if s.n == 0 {
		return calls(bash(fmt.Sprintf("printf 'done\\n' > %s.txt && git add %s.txt && git commit -qm '%s: write the file'", s.task, s.task, s.task)))
	}
	return text("wrote and committed " + s.task + ".txt")
}
