package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/reinhq/rein/guard/replay"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

const (
	guardSamples = "../../trajectory/testdata/"
	piFixtures   = "../../testdata/sessions/pi/"
	sweFixtures  = "../../testdata/trajectories/swe-agent/"
)

// runGuard runs `guard <args>` and returns stdout, stderr and the error.
func runGuard(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newGuardCmd()
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// jsonlResult splits jsonl output into its entries and summary.
func jsonlResult(t *testing.T, out string) ([]replay.Entry, replay.Summary) {
	t.Helper()
	var entries []replay.Entry
	var sum replay.Summary
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i, line := range lines {
		if i == len(lines)-1 {
			var s struct {
				Summary *replay.Summary `json:"summary"`
			}
			if err := json.Unmarshal([]byte(line), &s); err != nil || s.Summary == nil {
				t.Fatalf("last line is not a summary: %q (%v)", line, err)
			}
			sum = *s.Summary
			continue
		}
		var e replay.Entry
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("line %d: %v: %q", i+1, err, line)
		}
		entries = append(entries, e)
	}
	return entries, sum
}

func TestGuardReplayFormats(t *testing.T) {
	tests := []struct {
		file      string
		decisions map[string]int
		rules     map[string]map[string]int
	}{
		{piFixtures + "session-read-tool-then-followup.jsonl", map[string]int{"allow": 1}, nil},
		{piFixtures + "events-sample.jsonl", map[string]int{"allow": 1}, nil},
		{sweFixtures + "gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj", map[string]int{"allow": 11, "cached": 1},
			map[string]map[string]int{"same_output": {"cached": 1}}},
		// The re-reads in these samples are too short to be answered with a
		// reference; a loop warning is given once per streak;
		// and the bash views print less than the tools' pages, so no hint.
		{guardSamples + "rein-session.jsonl", map[string]int{"allow": 6}, nil},
		{guardSamples + "claude-code-session.jsonl", map[string]int{"allow": 12, "block": 1},
			map[string]map[string]int{"error_retry": {"block": 1}}},
		{guardSamples + "claude-stream.jsonl", map[string]int{"allow": 15, "warn": 1},
			map[string]map[string]int{"loop.poll_no_progress": {"warn": 1}}},
		{guardSamples + "neutral.jsonl", map[string]int{"allow": 26, "block": 3},
			map[string]map[string]int{"cascade": {"block": 1}, "error_retry": {"block": 1}, "loop.unknown_tool": {"block": 1},
				"passthrough": {"allow": 1}}},
	}
	for i := range tests {
		tests[i].file = mustAbs(t, tests[i].file)
	}
	t.Chdir(t.TempDir()) // no workspace configuration: the defaults
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			stdout, stderr, err := runGuard(t, "replay", "--format", "jsonl", tt.file)
			if err != nil || stderr != "" {
				t.Fatalf("err %v, stderr %q", err, stderr)
			}
			entries, sum := jsonlResult(t, stdout)
			if len(entries) != sum.Calls {
				t.Fatalf("%d entries for %d calls", len(entries), sum.Calls)
			}
			for i, e := range entries {
				if e.I != i || e.File == "" || e.Tool == "" || e.Decision == "" {
					t.Fatalf("entry %d = %+v", i, e)
				}
			}
			if diff := cmp.Diff(tt.decisions, sum.Decisions); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.rules, sum.Rules, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// hintAlways writes a configuration that hints at every mismatch, so
// that the short samples show hints.
func hintAlways(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "always.json")
	if err := os.WriteFile(p, []byte(`{"mismatch": "always"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGuardReplayJSONLShape(t *testing.T) {
	stdout, _, err := runGuard(t, "replay", "--config", hintAlways(t), "--format", "jsonl", guardSamples+"neutral.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(stdout, "\n", 2)[0]
	var m map[string]any
	if err := json.Unmarshal([]byte(first), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"i", "tool", "decision", "rule", "message", "tokens_cost"} {
		if _, ok := m[k]; !ok {
			t.Errorf("entry lacks %q: %s", k, first)
		}
	}
	if m["decision"] != "hint" || m["rule"] != "mismatch" || !strings.Contains(m["message"].(string), `use the read tool for this: path="README.md"`) {
		t.Errorf("first entry = %s", first)
	}
}

func TestGuardReplayTable(t *testing.T) {
	stdout, stderr, err := runGuard(t, "replay", "--config", hintAlways(t), guardSamples+"neutral.jsonl", guardSamples+"claude-stream.jsonl")
	if err != nil || stderr != "" {
		t.Fatalf("err %v, stderr %q", err, stderr)
	}
	for _, want := range []string{
		guardSamples + "neutral.jsonl (neutral, 29 calls)",
		guardSamples + "claude-stream.jsonl (claude-stream-json, 16 calls)",
		"LINE  #   TURN  TOOL",
		"hint      mismatch",
		"Summary: 2 files, 45 calls\n",
		"decisions: allow 39, hint 2, warn 1, block 3\n",
		"    mismatch               hint 2   net -62 ",
		"    loop.poll_no_progress  warn 1   net -54 ",
		"tokens (characters/4; request prefixes as recorded, else estimated): net -",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
}

func TestGuardReplayMalformedAndMissing(t *testing.T) {
	stdout, stderr, err := runGuard(t, "replay", "--format", "jsonl", guardSamples+"malformed.jsonl", "no-such-file.jsonl")
	if err == nil || !strings.Contains(err.Error(), "1 of 2 files could not be replayed") {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{
		"rein: " + guardSamples + "malformed.jsonl:2: not a JSON object\n",
		"rein: " + guardSamples + "malformed.jsonl:10: not valid JSON",
		"rein: open no-such-file.jsonl: no such file or directory\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	entries, sum := jsonlResult(t, stdout)
	if len(entries) != 9 || sum.Malformed != 8 || sum.Files != 1 {
		t.Fatalf("%d entries, summary %+v", len(entries), sum)
	}
}

// TestGuardReplayRefusedFileAmongOthers checks that a file that is
// mostly not the format it looks like is refused with its reason, and
// the other files are still replayed.
func TestGuardReplayRefusedFileAmongOthers(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "calls.jsonl")
	if err := os.WriteFile(bad, []byte(`{"tool":"bash","command":"ls","output":"a"}`+"\n"+`{"tool":"bash","command":"pwd","output":"/"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runGuard(t, "replay", "--format", "jsonl", bad, guardSamples+"neutral.jsonl")
	if err == nil || !strings.Contains(err.Error(), "1 of 2 files could not be replayed") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(stderr, bad+": refused: most lines do not fit the format: 2 of 2 lines are not neutral lines") || !strings.Contains(stderr, `unknown member "command", "output"`) {
		t.Fatalf("stderr = %q", stderr)
	}
	if _, sum := jsonlResult(t, stdout); sum.Files != 1 || sum.Calls != 29 {
		t.Fatalf("summary %+v", sum)
	}
}

func TestGuardReplayConfig(t *testing.T) {
	neutral := mustAbs(t, guardSamples+"neutral.jsonl")
	firstDecision := func(t *testing.T, args ...string) (string, string) {
		t.Helper()
		stdout, stderr, err := runGuard(t, append([]string{"replay", "--format", "jsonl"}, append(args, neutral)...)...)
		if err != nil {
			t.Fatalf("err = %v (stderr %q)", err, stderr)
		}
		entries, _ := jsonlResult(t, stdout)
		return entries[0].Decision, stderr
	}
	dir := t.TempDir()
	t.Chdir(dir)
	// The first call is a short cat: the default gives no hint for it.
	if d, _ := firstDecision(t); d != "allow" {
		t.Fatalf("default config: first decision %s, want allow", d)
	}
	if d, _ := firstDecision(t, "--config", hintAlways(t)); d != "hint" {
		t.Fatalf("--config always: first decision %s, want hint", d)
	}
	off := filepath.Join(dir, "off.json")
	if err := os.WriteFile(off, []byte(`{"disable":["mismatch"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, _ := firstDecision(t, "--config", off); d != "allow" {
		t.Fatalf("--config: first decision %s, want allow", d)
	}
	// The working directory's pi config is used when rein's is absent.
	if err := os.MkdirAll(filepath.Join(dir, ".pi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".pi", "harness-config.json"), []byte(`{"mismatch":"always"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, _ := firstDecision(t); d != "hint" {
		t.Fatalf(".pi config: first decision %s, want hint", d)
	}
	// A pi config that asks for blocking keeps it.
	if err := os.WriteFile(filepath.Join(dir, ".pi", "harness-config.json"), []byte(`{"mismatch":"block"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, _ := firstDecision(t); d != "block" {
		t.Fatalf(".pi config asking to block: first decision %s, want block", d)
	}
	// A broken rein config wins, warns and gives the defaults.
	if err := os.MkdirAll(filepath.Join(dir, ".rein"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".rein", "harness-config.json"), []byte(`{"disable": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	d, stderr := firstDecision(t)
	if d != "allow" || strings.Count(stderr, "warning") != 1 || !strings.Contains(stderr, "using the defaults") {
		t.Fatalf("broken config: decision %s, stderr %q", d, stderr)
	}
	if _, _, err := runGuard(t, "replay", "--config", filepath.Join(dir, "missing.json"), neutral); err == nil || !strings.Contains(err.Error(), "--config: no such file") || strings.Contains(err.Error(), "using the defaults") {
		t.Fatalf("missing --config file: err = %v", err)
	}
}

func TestGuardReplayUsageErrors(t *testing.T) {
	if _, _, err := runGuard(t, "replay"); err == nil {
		t.Error("no files accepted")
	}
	if _, _, err := runGuard(t, "replay", "--format", "xml", guardSamples+"neutral.jsonl"); err == nil || !strings.Contains(err.Error(), "jsonl or table") {
		t.Errorf("bad format: err = %v", err)
	}
	stdout, _, err := runGuard(t)
	if err != nil || !strings.Contains(stdout, "replay") {
		t.Errorf("guard alone: err %v, out %q", err, stdout)
	}
}

// A rein session recorded with the guards on replays to the decisions the
// guards made live: blocked calls count as not run, cached reads as
// unchanged, and unknown tools stay unknown once the guard answers them.
func TestGuardReplayOfOwnSession(t *testing.T) {
	ws := t.TempDir()
	// Long enough for a re-read to be answered with a reference.
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte(strings.Repeat("alpha\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Longer than the output limit: cut, so worth a hint.
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(strings.Repeat("a long line of the big file\n", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every reply says something new, so that the harness's own stall
	// detection does not end the run before the guards do.
	n := 0
	call := func(name, args string) string {
		n++
		return `{"text": "step ` + strconv.Itoa(n) + `", "tool_calls": [{"name": "` + name + `", "arguments": ` + args + `}]}`
	}
	lines := []string{
		call("read", `{"path": "a.txt"}`),
		call("read", `{"path": "a.txt"}`),
		call("bash", `{"command": "cat a.txt"}`),
		call("bash", `{"command": "cat a.txt"}`),
		call("bash", `{"command": "grep -n alpha a.txt"}`),
		call("bash", `{"command": "grep -n alpha a.txt"}`),
		call("bash", `{"command": "cat big.txt"}`),
	}
	for range 3 {
		lines = append(lines, call("edit", `{"path": "a.txt", "edits": [{"old_text": "nope", "new_text": "x"}]}`))
	}
	for i := range 12 {
		lines = append(lines, call("frobnicate", `{"n": `+strconv.Itoa(i)+`}`))
	}
	for range 30 {
		lines = append(lines, call("ls", `{}`))
	}
	lines = append(lines, `{"text": "done"}`)
	script := writeScript(t, t.TempDir(), strings.Join(lines, "\n"))
	runCLI(t, "", "run", "--permission-mode", "bypassPermissions", "-m", "faux", "--script", script, "-C", ws, "--max-turns", "200", "go")

	// What the guards did live, from the notes of the logged results.
	path := latestSession(t, ws)
	_, entries, _, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, e := range entries {
		if e.Type != session.TypeMessage || e.Message.Role != llm.RoleToolResult {
			continue
		}
		v := "allow"
		for _, n := range e.Message.Notes {
			if rest, ok := strings.CutPrefix(n, "guard:"); ok {
				v = rest
				if v == "cached" {
					v = "cached:read_cache"
				}
			}
		}
		live = append(live, v)
	}
	stdout, _, err := runGuard(t, "replay", "--format", "jsonl", path)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := jsonlResult(t, stdout)
	var replayed []string
	for _, e := range got {
		v := e.Decision
		if e.Rule != "" && e.Decision != "allow" {
			v += ":" + e.Rule
		}
		replayed = append(replayed, v)
	}
	if diff := cmp.Diff(live, replayed); diff != "" {
		t.Fatalf("replay differs from the live decisions (-live +replay):\n%s", diff)
	}
	if live[1] != "cached:read_cache" || live[3] != "cached:read_cache" {
		t.Errorf("the re-read and the repeated cat were not answered from the cache: %v", live[:4])
	}
	if live[5] != "cached:same_output" {
		t.Errorf("the repeated grep was not answered as the same output: %v", live[:6])
	}
	if live[2] != "allow" || live[6] != "hint:mismatch" {
		t.Errorf("the short cat was hinted, or the cut one was not: %v", live[:7])
	}
	for _, want := range []string{"cached:read_cache", "hint:mismatch", "block:error_retry", "block:loop.unknown_tool", "stop:loop.circuit_breaker"} {
		if !slices.Contains(live, want) {
			t.Errorf("the run never produced %s: %v", want, live)
		}
	}
}
