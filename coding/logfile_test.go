package coding

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/redact"
)

func TestOpenLogs(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	r := redact.New("s3cr3t-value-1234")
	var stderr bytes.Buffer

	set, closeLogs, err := OpenLogs(env(nil), &stderr, false, "", r)
	if set != nil || err != nil || closeLogs == nil {
		t.Fatalf("REIN_LOG unset: %v %v", set, err)
	}
	if _, _, err := OpenLogs(env(map[string]string{"REIN_LOG": "gaurd=debug"}), &stderr, false, "", r); err == nil || !strings.HasPrefix(err.Error(), "REIN_LOG: ") {
		t.Errorf("bad spec: %v", err)
	}

	set, closeLogs, err = OpenLogs(env(map[string]string{"REIN_LOG": "tool=info"}), &stderr, false, "", r)
	if err != nil {
		t.Fatal(err)
	}
	set.Logger("tool").Info("call", "tool", "read")
	closeLogs()
	if !strings.Contains(stderr.String(), "msg=call subsystem=tool tool=read") {
		t.Errorf("standard error: %q", stderr.String())
	}

	// A full-screen front-end's lines go to the workspace's log file, masked.
	dir := t.TempDir()
	stderr.Reset()
	set, closeLogs, err = OpenLogs(env(map[string]string{"REIN_LOG": "info"}), &stderr, true, dir, r)
	if err != nil {
		t.Fatal(err)
	}
	set.Logger("agent").Info("run ended", "note", "s3cr3t-value-1234")
	closeLogs()
	data, err := os.ReadFile(filepath.Join(dir, ".rein", "logs", "rein.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `msg="run ended" subsystem=agent`) || strings.Contains(string(data), "s3cr3t") || stderr.Len() != 0 {
		t.Errorf("log file %q, standard error %q", data, stderr.String())
	}

	bad := map[string]string{"REIN_LOG": "info", "REIN_LOG_FILE": filepath.Join(dir, "missing", "x.log")}
	if _, _, err := OpenLogs(env(bad), &stderr, false, dir, r); err == nil || !strings.HasPrefix(err.Error(), "REIN_LOG_FILE: ") {
		t.Errorf("unopenable file: %v", err)
	}
}
