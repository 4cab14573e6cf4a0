// Package llmtest holds test helpers shared by the provider packages:
// transcripts of event streams and golden files that pin them down, so a
// change to a decoder can be shown to keep every event and every error;
// a loopback Server that records requests, with handlers that replay
// event streams and error replies; SSE framing of recorded payloads;
// Drain, which reads a stream and checks the provider contract; and
// CPUTime for benchmarks.
package llmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
)

// Case is one input of a conformance test and the transcript it gave.
type Case struct {
	Name string
	Got  string
}

// Input is one named body to decode.
type Input struct {
	Name string
	Body []byte
}

// Transcript renders a stream as text, one event a line, each as its
// JSON with the final message's timestamp cleared; an event that came
// with an error is followed by a line describing the error: its class,
// HTTP status, message and text. Two streams have the same transcript
// exactly when they give the same events and the same errors. The JSON
// library words its errors "cannot" or "unable to", chosen once per
// process; transcripts always read "cannot".
func Transcript(events []llm.Event, errs []error) string {
	var b strings.Builder
	for i, ev := range events {
		if ev.Message != nil {
			m := *ev.Message
			m.Timestamp = time.Time{}
			ev.Message = &m
		}
		line, err := json.Marshal(ev)
		if err != nil {
			line = []byte(fmt.Sprintf("unencodable event %s: %v", ev.Type, err))
		}
		b.Write(line)
		b.WriteByte('\n')
		if i < len(errs) && errs[i] != nil {
			b.WriteString("error: " + DescribeError(errs[i]) + "\n")
		}
	}
	return strings.ReplaceAll(b.String(), "json: unable to ", "json: cannot ")
}

// DescribeError renders an error as one line: for an *llm.Error its code,
// status, message and retry delay, then the error's text.
func DescribeError(err error) string {
	var le *llm.Error
	if errors.As(err, &le) {
		d := struct {
			Code       llm.ErrorCode `json:"code"`
			Status     int           `json:"status,omitempty"`
			Message    string        `json:"message"`
			RetryAfter string        `json:"retry_after,omitempty"`
			Text       string        `json:"text"`
		}{le.Code, le.Status, le.Message, "", err.Error()}
		if le.RetryAfter != 0 {
			d.RetryAfter = le.RetryAfter.String()
		}
		b, _ := json.Marshal(d)
		return string(b)
	}
	b, _ := json.Marshal(struct {
		Text string `json:"text"`
	}{err.Error()})
	return string(b)
}

// Golden compares the cases with the golden file at path, or rewrites
// the file when update is set. The file holds each case under a line
// "=== name", in the order given.
func Golden(t *testing.T, path string, cases []Case, update bool) {
	t.Helper()
	var b strings.Builder
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			t.Fatalf("two cases named %q", c.Name)
		}
		seen[c.Name] = true
		b.WriteString("=== " + c.Name + "\n" + c.Got)
	}
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	wantCases := split(string(want))
	for _, c := range cases {
		w, ok := wantCases[c.Name]
		if !ok {
			t.Errorf("case %s is not in %s (run with -update)", c.Name, path)
			continue
		}
		if diff := cmp.Diff(strings.Split(w, "\n"), strings.Split(c.Got, "\n")); diff != "" {
			t.Errorf("case %s differs from %s (-golden +got):\n%s", c.Name, path, diff)
		}
		delete(wantCases, c.Name)
	}
	var gone []string
	for name := range wantCases {
		gone = append(gone, name)
	}
	sort.Strings(gone)
	for _, name := range gone {
		t.Errorf("case %s of %s was not run", name, path)
	}
}

func split(s string) map[string]string {
	out := map[string]string{}
	name := ""
	var cur strings.Builder
	flush := func() {
		if name != "" {
			out[name] = cur.String()
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(s, "\n") {
		if n, ok := strings.CutPrefix(line, "=== "); ok {
			flush()
			name = strings.TrimSuffix(n, "\n")
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return out
}

// Corpus reads the single []byte value of each file of a go test fuzz
// corpus folder (testdata/fuzz/FuzzX), named "corpus/<file>". A missing
// folder is an empty corpus.
func Corpus(tb testing.TB, dir string) []Input {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	var out []Input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		lines := bytes.Split(data, []byte("\n"))
		if len(lines) < 2 || string(lines[0]) != "go test fuzz v1" {
			tb.Fatalf("%s: not a fuzz corpus file", f)
		}
		v := strings.TrimSpace(string(lines[1]))
		inner, ok := strings.CutPrefix(v, "[]byte(")
		if !ok || !strings.HasSuffix(inner, ")") {
			tb.Fatalf("%s: want one []byte value, have %q", f, v)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(inner, ")"))
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		out = append(out, Input{Name: "corpus/" + filepath.Base(f), Body: []byte(s)})
	}
	return out
}

// Trim returns an SSE body cut to its first head and last tail events
// (blocks separated by a blank line), for fuzz seeds: the fuzzer
// minimises each new input it finds for up to a minute, and inputs grown
// from whole recordings take all of it, so fuzzing slows to a few
// executions a second. A body of at most head+tail events is returned as
// it is.
func Trim(body []byte, head, tail int) []byte {
	events := bytes.SplitAfter(body, []byte("\n\n"))
	if len(events) <= head+tail {
		return body
	}
	out := bytes.Join(events[:head], nil)
	return append(out, bytes.Join(events[len(events)-tail:], nil)...)
}

// QuickMinimize, called from TestMain before m.Run, caps how long a fuzz
// run minimises each new input it finds at 200 runs of the target unless
// -test.fuzzminimizetime was given. The default, a minute an input, stops
// fuzzing stream decoders for most of that minute (their inputs are
// large), so that go test -fuzz would run at a few executions a second.
func QuickMinimize() {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.fuzzminimizetime" })
	if !given && flag.Lookup("test.fuzzminimizetime") != nil {
		_ = flag.Set("test.fuzzminimizetime", "200x")
	}
}
