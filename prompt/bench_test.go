package prompt

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchTree is a workspace five folders deep with a context file in each
// and fifty skills.
func benchTree(b *testing.B) string {
	files := map[string]string{"r/.git/": ""}
	dir := "r"
	for i := range 5 {
		files[dir+"/AGENTS.md"] = strings.Repeat(fmt.Sprintf("Rule %d: keep it simple.\n", i), 20)
		dir += fmt.Sprintf("/d%d", i)
	}
	files[dir+"/"] = ""
	for i := range 50 {
		n := fmt.Sprintf("skill-%02d", i)
		files["r/.agents/skills/"+n+"/SKILL.md"] = skillMD(n, "Does one thing well, with care.") + strings.Repeat("body\n", 200)
	}
	root := tree(b, files)
	return filepath.Join(root, strings.ReplaceAll(dir, "/", string(filepath.Separator)))
}

// Cold: discover the workspace and assemble the prompt from nothing.
// Warm: assemble again with the stable tiers cached.
func BenchmarkAssemble(b *testing.B) {
	ws := benchTree(b)
	o := DiscoverOptions{Workspace: ws, ConfigDir: "-"}
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			f := Discover(o)
			if len(f.ContextFiles) != 5 || len(f.Skills) != 50 {
				b.Fatalf("%d files, %d skills", len(f.ContextFiles), len(f.Skills))
			}
			if _, err := NewBuilder(Options{Found: f}).System(ctx, Turn{Tools: coding}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		bl := NewBuilder(Options{Discover: o})
		bl.System(ctx, Turn{Tools: coding})
		for b.Loop() {
			if _, err := bl.System(ctx, Turn{Tools: coding}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// claudeBenchTree is a workspace with the whole CLAUDE.md family — ten
// context files, imports two deep — and fifty Claude Code commands, one
// of them nested.
func claudeBenchTree(b *testing.B) (ws, home string) {
	rule := strings.Repeat("Prefer small functions; test what you change.\n", 10)
	files := map[string]string{
		"r/.git/":                   "",
		"home/.claude/CLAUDE.md":    rule + "@~/notes/style.md\n",
		"home/notes/style.md":       rule,
		"home/.claude/rules/go.md":  rule,
		"r/CLAUDE.md":               rule + "@AGENTS.md\n@docs/extra.md\n",
		"r/AGENTS.md":               rule,
		"r/docs/extra.md":           rule + "@deeper.md\n",
		"r/docs/deeper.md":          rule,
		"r/.claude/CLAUDE.md":       rule,
		"r/.claude/rules/style.md":  rule,
		"r/CLAUDE.local.md":         rule,
		"r/.claude/commands/x/y.md": "nested $ARGUMENTS",
	}
	for i := range 49 {
		files[fmt.Sprintf("r/.claude/commands/cmd%02d.md", i)] = "---\ndescription: command\nallowed-tools: Read, Bash(git diff:*)\n---\nDo $ARGUMENTS.\n"
	}
	root := tree(b, files)
	return filepath.Join(root, "r"), filepath.Join(root, "home")
}

// BenchmarkClaudeFamily: cold is discovering the family and the commands
// and assembling the prompt; warm is assembling it again.
func BenchmarkClaudeFamily(b *testing.B) {
	ws, home := claudeBenchTree(b)
	o := DiscoverOptions{Workspace: ws, ConfigDir: "-", Home: home, Getenv: func(string) string { return "" }}
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			f := Discover(o)
			if len(f.ContextFiles) != 10 || len(f.Templates) != 50 {
				b.Fatalf("%d files, %d commands: %v", len(f.ContextFiles), len(f.Templates), f.Notes)
			}
			if _, err := NewBuilder(Options{Found: f}).System(ctx, Turn{Tools: coding}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/op")
		// The process's CPU time per op: the work done, which a busy
		// machine does not inflate the way it does wall time.
		b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N)/1000, "cpu-ms/op")
	})
	b.Run("warm", func(b *testing.B) {
		bl := NewBuilder(Options{Discover: o})
		bl.System(ctx, Turn{Tools: coding})
		for b.Loop() {
			if _, err := bl.System(ctx, Turn{Tools: coding}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "µs/op")
	})
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
