package long

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/sandbox"
)

// TestVerifyUnderWorkspaceSecurity: long mode's verify commands run in
// the sandbox the workspace's .rein/security.json describes, not a
// default one: a trusted "writable" directory outside the workspace is
// writable to them (confined by default, the write would not reach it).
// Untrusted, only the settings that tighten apply.
func TestVerifyUnderWorkspaceSecurity(t *testing.T) {
	if sandbox.Guess() == sandbox.None {
		t.Skip("no sandbox on this system: nothing confines the commands (CI installs bubblewrap)")
	}
	extra := t.TempDir()
	mark := filepath.Join(extra, "mark")
	plan := planOf(1, map[string]string{"t1": fmt.Sprintf(`["printf ok > %s", "test -f t1.txt"]`, mark)})
	f := newFixture(t, plan)
	f.write(".rein/security.json", fmt.Sprintf(`{"writable": [%q], "network": false}`, extra))

	// Untrusted: the writable directory is dropped, no network stays.
	o := f.options(nil)
	pol, _, err := coding.CommandSandbox(o.Agent, f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(pol.Writable, extra) || !pol.NoNetwork || pol.Mode == sandbox.Off {
		t.Fatalf("untrusted settings: %+v", pol)
	}

	p := model(4, diligent)
	o = f.options(p)
	getenv := o.Agent.Getenv
	o.Agent.Getenv = func(k string) string {
		if k == "REIN_TRUST_WORKSPACE" {
			return "1"
		}
		return getenv(k)
	}
	pol, _, err = coding.CommandSandbox(o.Agent, f.dir)
	if err != nil || !slices.Contains(pol.Writable, extra) || !pol.NoNetwork {
		t.Fatalf("trusted settings: %+v %v", pol, err)
	}
	res, err := Work(context.Background(), WorkOptions{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopDone {
		t.Fatalf("stop %s: %s %+v", res.Stop, res.Detail, res.Sessions)
	}
	if b, err := os.ReadFile(mark); err != nil || string(b) != "ok" {
		t.Fatalf("the verify command's write to the writable directory: %q %v", b, err)
	}
}

// TestVerifyWithoutTheSettingIsConfined is the control: without the
// writable setting the same verify command cannot write there, so the
// task is not done.
func TestVerifyWithoutTheSettingIsConfined(t *testing.T) {
	if sandbox.Guess() == sandbox.None {
		t.Skip("no sandbox on this system: nothing confines the commands (CI installs bubblewrap)")
	}
	extra := t.TempDir()
	mark := filepath.Join(extra, "mark")
	f := newFixture(t, planOf(1, map[string]string{"t1": fmt.Sprintf(`["printf ok > %s", "test -f t1.txt"]`, mark)}))
	res, err := Work(context.Background(), WorkOptions{Options: f.options(model(4, diligent))})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop == StopDone || len(res.Sessions) != 1 || res.Sessions[0].Outcome != OutcomeVerifyFailed {
		t.Fatalf("stop %s, sessions %+v", res.Stop, res.Sessions)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("a confined verify command wrote outside the workspace")
	}
}
