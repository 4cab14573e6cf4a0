package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The end-to-end test drives the real rein binary (rein --mode rpc
// --model faux) with pi's own RpcClient from @mariozechner/pi-coding-agent
// 0.73.1, installed in interop/testdata/npm by .ci/run. It runs when
// REIN_INTEROP_E2E=1, which .ci/run sets.

// e2eScript is the faux model's side of rpc/testdata/pi-client.mjs, in
// the order the client's steps consume the replies. The two held bash
// calls wait for a file the client creates (open1) or never creates
// (open2, the call it aborts).
var e2eScript = []string{
	`{"text":"Making it.","tool_calls":[{"id":"t1","name":"bash","arguments":{"command":"echo made > made.txt"}}]}`,
	`{"text":"Made it."}`,
	`{"tool_calls":[{"id":"g1","name":"bash","arguments":{"command":"until [ -e open1 ]; do sleep 0.05; done; echo through"}}]}`,
	`{"text":"Steered."}`,
	`{"text":"Followed once."}`,
	`{"text":"Followed."}`,
	`{"tool_calls":[{"id":"g2","name":"bash","arguments":{"command":"until [ -e open2 ]; do sleep 0.05; done; echo through"}}]}`,
	`{"text":"Summary of the work: made.txt was created."}`,
	`{"text":"Still here."}`,
}

var (
	buildOnce sync.Once
	built     struct {
		dir, bin string
		err      error
	}
)

// reinBinary builds rein once for the package's end-to-end tests;
// TestMain removes it.
func reinBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "rein-rpc-e2e-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "rein")
		if out, err := exec.Command("go", "build", "-o", built.bin, "../cmd/rein").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func TestPiRPCClientDrivesRein(t *testing.T) {
	if os.Getenv("REIN_INTEROP_E2E") != "1" {
		t.Skip("set REIN_INTEROP_E2E=1 (with interop/testdata/npm installed) to drive rein --mode rpc with pi's RpcClient")
	}
	modules, err := filepath.Abs("../interop/testdata/npm/node_modules")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "@mariozechner/pi-coding-agent/dist/index.js")); err != nil {
		t.Fatalf("pi is not installed: run npm install in interop/testdata/npm (.ci/run does): %v", err)
	}
	client, err := filepath.Abs("testdata/pi-client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	rein := reinBinary(t)
	work, home := t.TempDir(), t.TempDir()
	script := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(script, []byte(strings.Join(e2eScript, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", client)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "REIN_BIN=" + rein,
		"PI_MODULES=" + modules, "WORKDIR=" + work, "SCRIPT=" + script}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pi's RpcClient: %v\n%s\n%s", err, out, stderr.String())
	}
	var facts struct {
		FirstEventMs  float64 `json:"firstEventMs"`
		Events        int     `json:"events"`
		Approvals     int     `json:"approvals"`
		SetModelError string  `json:"setModelError"`
	}
	if err := json.Unmarshal(out, &facts); err != nil {
		t.Fatalf("client output %q: %v\n%s", out, err, stderr.String())
	}
	t.Logf("prompt to first event: %.1f ms; %d events in the first prompt; %d approvals; set_model error: %s",
		facts.FirstEventMs, facts.Events, facts.Approvals, facts.SetModelError)
	if b, err := os.ReadFile(filepath.Join(work, "made.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("the approved command's file: %q %v", b, err)
	}
	// The first session, its fork and the new session are on disk.
	logs, _ := filepath.Glob(filepath.Join(work, ".rein", "sessions", "*.jsonl"))
	if len(logs) < 3 {
		t.Errorf("session logs = %v, want the first, the fork and the new one", logs)
	}
}
