package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestACPServesAScriptedSession(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	script := filepath.Join(dir, "replies.jsonl")
	if err := os.WriteFile(script, []byte(`{"text":"hello from the script"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut strings.Builder
	e := &env{stdin: inR, stdout: outW, stderr: &errOut, getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}
	done := make(chan int, 1)
	go func() {
		done <- execute(context.Background(), e, []string{"acp", "--model", "faux", "--script", script})
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	send := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("stdout holds a line that is not JSON: %q", sc.Text())
			}
			if _, note := m["method"]; !note {
				return m
			}
			if !strings.Contains(sc.Text(), `"sessionUpdate"`) {
				t.Errorf("unexpected message %s", sc.Text())
			}
		}
		t.Fatalf("stdout ended: %s", errOut.String())
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	m := send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + dir + `","mcpServers":[]}}`)
	id := m["result"].(map[string]any)["sessionId"].(string)
	m = send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"text","text":"hi"}]}}`)
	if m["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Errorf("prompt: %v", m)
	}
	inW.Close()
	for sc.Scan() {
	}
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
}

func TestACPNeedsAScriptForFaux(t *testing.T) {
	code, out, errOut := runCLI(t, "", "acp", "--model", "faux")
	if code != 2 || out != "" || !strings.Contains(errOut, "--script") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
