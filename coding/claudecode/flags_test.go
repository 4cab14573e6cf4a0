package claudecode

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestToolNames(t *testing.T) {
	for in, want := range map[string]string{
		"Read":             "read",
		"Read,Edit Bash":   "read,edit,bash",
		"Glob, MultiEdit":  "find,edit",
		"coding,-Bash":     "coding,-bash",
		"readonly":         "readonly",
		"Bash(git diff:*)": "bash(git diff:*)",
		"Read,Task":        "read,agent",
		"Agent, Bash":      "agent,bash",
		"coding,-Task":     "coding,-agent",
		"  ":               "  ",
	} {
		if got := ToolNames(in); got != want {
			t.Errorf("ToolNames(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFlagsResolve(t *testing.T) {
	f := Flags{Allowed: []string{"Bash(git diff:*),Read", "Grep"}, Disallowed: []string{"Bash(rm:*)"}}
	r, err := f.Resolve("acceptEdits", "Read,Glob")
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != "acceptEdits" || r.Tools != "read,find" ||
		!slices.Equal(r.Allow, []string{"Bash(git diff:*)", "Read", "Grep"}) || !slices.Equal(r.Deny, []string{"Bash(rm:*)"}) {
		t.Fatalf("resolved %+v", r)
	}

	f = Flags{SkipPermissions: true}
	if r, err := f.Resolve("", ""); err != nil || r.Mode != "auto_all" {
		t.Fatalf("skip permissions: %+v %v", r, err)
	}
	if r, err := f.Resolve("bypassPermissions", ""); err != nil || r.Mode != "auto_all" {
		t.Fatalf("skip permissions with its own mode: %+v %v", r, err)
	}
	if _, err := f.Resolve("plan", ""); err == nil || !strings.Contains(err.Error(), "contradict") {
		t.Fatalf("skip permissions beside plan: %v", err)
	}
}

// Every flag rein does not honour is refused with its reason, never
// taken as if it had been.
func TestUnsupportedFlags(t *testing.T) {
	for _, name := range UnsupportedFlags() {
		f := Flags{Unsupported: map[string]string{name: "x"}}
		_, err := f.Resolve("", "")
		var ue *UnsupportedError
		if !errors.As(err, &ue) || ue.Flag != name {
			t.Fatalf("--%s: %v", name, err)
		}
		if why := unsupportedWhy[name]; why == "" || !strings.HasSuffix(err.Error(), why) {
			t.Errorf("--%s: no reason in %q", name, err)
		}
	}
	if _, err := (&Flags{Unsupported: map[string]string{"settings": ""}}).Resolve("", ""); err != nil {
		t.Errorf("a flag not given: %v", err)
	}
}

func TestResumeArgs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--resume"}, []string{"--resume=P"}},
		{[]string{"-r", "-p", "hi"}, []string{"--resume=P", "-p", "hi"}},
		{[]string{"--resume", "abc", "-p", "hi"}, []string{"--resume", "abc", "-p", "hi"}},
		{[]string{"--resume=abc"}, []string{"--resume=abc"}},
		{[]string{"-p", "--", "--resume"}, []string{"-p", "--", "--resume"}},
		{nil, nil},
	} {
		if got := ResumeArgs(tc.in, "P"); !slices.Equal(got, tc.want) {
			t.Errorf("ResumeArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
