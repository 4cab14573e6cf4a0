package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-serve", false, "rewrite the rein-stream-json golden file")

// volatile are the members of events that differ between two runs of one
// script: times and durations.
var volatile = regexp.MustCompile(`"(timestamp|created|started|ended|duration_ms|elapsed_ms)":("[^"]*"|[0-9.]+)`)

// callID matches the faux model's generated tool call ids.
var callID = regexp.MustCompile(`call_[0-9a-f]+_([0-9]+)`)

func normalize(b []byte) string {
	s := volatile.ReplaceAllString(string(b), `"$1":"…"`)
	return callID.ReplaceAllString(s, "call_N_$1")
}

// reinStream runs the read script with --output-format rein-stream-json
// in dir and returns its lines, normalized.
func reinStream(t *testing.T, dir string) []string {
	t.Helper()
	script := writeScript(t, t.TempDir(), readScript)
	code, out, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "-o", "rein-stream-json", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var lines []string
	for l := range strings.Lines(out) {
		lines = append(lines, normalize([]byte(strings.TrimSuffix(l, "\n"))))
	}
	return lines
}

// TestReinStreamJSONGolden pins the bytes of rein's event stream, which
// the server's event stream shares.
func TestReinStreamJSONGolden(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	got := strings.Join(reinStream(t, dir), "\n") + "\n"
	got = strings.ReplaceAll(got, dir, "WORKDIR")
	golden := filepath.Join("testdata", "rein-stream-json.golden")
	if *updateGolden {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("rein-stream-json changed:\n got %s\nwant %s", got, want)
	}
}

// startServe runs rein serve in this process with args and returns its
// base URL (or, with --socket, "") and the function that stops it.
func startServe(t *testing.T, getenv func(string) string, args ...string) (string, func() (int, string)) {
	t.Helper()
	pr, pw := io.Pipe()
	var out bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: pw, getenv: getenv}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, e, append([]string{"serve"}, args...))
		pw.Close()
	}()
	rd := bufio.NewReader(pr)
	line, err := rd.ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("rein serve said %q: %v", line, err)
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(rd)
		rest <- string(b)
	}()
	url := ""
	if i := strings.Index(line, "http://"); i >= 0 {
		url = strings.Fields(line[i:])[0]
	}
	return url, func() (int, string) {
		cancel()
		code := <-done
		return code, line + <-rest
	}
}

// TestServeSharesTheEventSchema runs one script through rein run's
// rein-stream-json and through rein serve's event stream: the server's
// events, but its own "run" events, are the same objects.
func TestServeSharesTheEventSchema(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	want := reinStream(t, dir)

	script := writeScript(t, t.TempDir(), readScript)
	url, stop := startServe(t, func(string) string { return "" }, "-m", "faux", "--script", script, "-C", dir, "--listen", "127.0.0.1:0", "--permission-mode", "auto_all")
	var sess struct{ ID string }
	postJSON(t, url+"/v1/sessions", `{}`, &sess, 201)
	resp, err := http.Get(url + "/v1/sessions/" + sess.ID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	postJSON(t, url+"/v1/sessions/"+sess.ID+"/prompt", `{"text": "go"}`, nil, 202)
	var got []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if strings.HasPrefix(data, `{"type":"run"`) {
			if strings.Contains(data, `"status":"completed"`) {
				break
			}
			continue
		}
		got = append(got, normalize([]byte(data)))
	}
	resp.Body.Close()
	if code, out := stop(); code != 0 {
		t.Errorf("rein serve exit %d: %s", code, out)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("server events:\n%s\nrein-stream-json:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func postJSON(t *testing.T, url, body string, out any, status int) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("POST %s = %d %s", url, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
}

func TestServeRefusesOpenAddressWithoutToken(t *testing.T) {
	code, _, errOut := runCLI(t, "", "serve", "-m", "faux", "--script", writeScript(t, t.TempDir(), readScript), "--listen", "0.0.0.0:0")
	if code != 2 || !strings.Contains(errOut, "needs a token") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "serve", "--token-file", filepath.Join(t.TempDir(), "none"))
	if code != 2 || !strings.Contains(errOut, "--token-file") {
		t.Fatalf("missing token file: exit %d: %s", code, errOut)
	}
}

// TestServeUnixSocket serves on a Unix socket readable by its owner only.
func TestServeUnixSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "rein.sock")
	_, stop := startServe(t, func(string) string { return "" }, "-m", "faux", "--script", writeScript(t, t.TempDir(), readScript), "-C", t.TempDir(), "--socket", sock)
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v %v", fi, err)
	}
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	defer c.CloseIdleConnections()
	resp, err := c.Get("http://rein/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"ok":true`) {
		t.Errorf("health over the socket = %d %s", resp.StatusCode, b)
	}
	code, out := stop()
	if code != 0 || !strings.Contains(out, "unix:"+sock) {
		t.Errorf("exit %d: %s", code, out)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket is left: %v", err)
	}
}

// TestServeToken: with REIN_SERVER_TOKEN set, requests need it.
func TestServeToken(t *testing.T) {
	url, stop := startServe(t, func(k string) string {
		if k == "REIN_SERVER_TOKEN" {
			return "tok-123"
		}
		return ""
	}, "-m", "faux", "--script", writeScript(t, t.TempDir(), readScript), "-C", t.TempDir(), "--listen", "127.0.0.1:0")
	defer stop()
	resp, err := http.Get(url + "/v1/sessions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("no token = %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", url+"/v1/sessions", nil)
	req.Header.Set("Authorization", "Bearer tok-123")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("token = %d", resp.StatusCode)
	}
}
