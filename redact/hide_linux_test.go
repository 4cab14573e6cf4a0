package redact

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestHideEnv runs this test binary again with a secret-looking variable
// and a plain one; the child calls HideEnv and reports its own
// /proc/self/environ and whether os.Getenv still has the value. The
// secret's value is gone from the kernel's copy, its name stays, the
// plain variable is untouched, and the process still knows the secret.
func TestHideEnv(t *testing.T) {
	if os.Getenv("REDACT_HIDE_CHILD") == "1" {
		HideEnv()
		env, err := os.ReadFile("/proc/self/environ")
		if err != nil {
			os.Stdout.WriteString("error: " + err.Error())
			os.Exit(0)
		}
		if os.Getenv("MY_SERVICE_TOKEN") == "tok-"+strings.Repeat("q7", 10) {
			os.Stdout.WriteString("known\n")
		}
		os.Stdout.Write(env)
		os.Exit(0)
	}
	secret := "tok-" + strings.Repeat("q7", 10)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHideEnv$")
	cmd.Env = append(os.Environ(), "REDACT_HIDE_CHILD=1", "MY_SERVICE_TOKEN="+secret, "PLAIN_SETTING=visible-value")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	if !bytes.HasPrefix(out, []byte("known\n")) {
		t.Fatalf("the process lost the secret's value: %q", out)
	}
	if bytes.Contains(out, []byte(secret)) {
		t.Fatal("the secret is still in /proc/self/environ")
	}
	if !bytes.Contains(out, []byte("\x00MY_SERVICE_TOKEN=\x00")) {
		t.Errorf("the name should stay with its value blanked: %q", out)
	}
	if !bytes.Contains(out, []byte("PLAIN_SETTING=visible-value")) {
		t.Errorf("a plain variable was changed: %q", out)
	}
}

// TestEnvBounds reads plausible bounds of this process's environment.
func TestEnvBounds(t *testing.T) {
	start, end, err := envBounds()
	if err != nil {
		t.Fatal(err)
	}
	if end <= start {
		t.Fatalf("bounds %d..%d", start, end)
	}
}
