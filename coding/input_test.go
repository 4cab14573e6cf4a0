package coding

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pipe returns the read end of a real pipe that a goroutine fills with
// text and closes.
func pipe(t *testing.T, text string) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.WriteString(w, text)
		w.Close()
	}()
	t.Cleanup(func() {
		r.Close()
		<-done
	})
	return r
}

// file returns a real file holding text, open for reading.
func file(t *testing.T, text string) *os.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestReadPromptFromStdin(t *testing.T) {
	for _, args := range [][]string{nil, {"-"}} {
		got, err := ReadPrompt(args, pipe(t, "fix the build\n"), false)
		if err != nil || got != "fix the build\n" {
			t.Fatalf("%q: %q, %v", args, got, err)
		}
	}
	// "-" asks for stdin even on a terminal; no argument there is no prompt.
	if got, err := ReadPrompt([]string{"-"}, pipe(t, "hi"), true); err != nil || got != "hi" {
		t.Fatalf("-: %q, %v", got, err)
	}
	if _, err := ReadPrompt(nil, readerFunc(func([]byte) (int, error) {
		t.Fatal("stdin read on a terminal")
		return 0, nil
	}), true); !errors.Is(err, ErrEmptyPrompt) {
		t.Fatalf("terminal: %v", err)
	}
	// A whole-stdin prompt stops at MaxPromptInput.
	big := file(t, strings.Repeat("y", MaxPromptInput+10))
	if got, err := ReadPrompt(nil, big, false); err != nil || len(got) != MaxPromptInput {
		t.Fatalf("big stdin: %d bytes, %v", len(got), err)
	}
}

func TestReadPromptAppendsPipedInput(t *testing.T) {
	got, err := ReadPrompt([]string{"summarise", "this"}, pipe(t, "line one\nline two\n"), false)
	if want := "summarise this\n\n```\nline one\nline two\n```"; err != nil || got != want {
		t.Fatalf("pipe: %q, %v", got, err)
	}
	// A regular file is piped input too.
	if got, err := ReadPrompt([]string{"count"}, file(t, "a\n"), false); err != nil || got != "count\n\n```\na\n```" {
		t.Fatalf("file: %q, %v", got, err)
	}
	// More than MaxPipedInput through a real pipe: the head is kept, the
	// rest read and counted, and a note says so.
	total := MaxPipedInput + 1000
	got, err = ReadPrompt([]string{"count"}, pipe(t, strings.Repeat("x", total)), false)
	note := fmt.Sprintf("\n\n(The piped input was cut to its first %d of %d bytes.)", MaxPipedInput, total)
	if err != nil || !strings.HasSuffix(got, note) || len(got) != len("count\n\n```\n")+MaxPipedInput+len("\n```")+len(note) {
		t.Fatalf("big pipe: %d bytes, %v, ending %q", len(got), err, got[max(0, len(got)-100):])
	}
}

// Stdin that is not piped input (a device such as /dev/null, a closed
// file) leaves the prompt as given; so does piped white space.
func TestReadPromptIgnoresWhatIsNotPiped(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	closed := file(t, "never read")
	closed.Close()
	for name, in := range map[string]io.Reader{"/dev/null": null, "closed": closed, "white space": pipe(t, " \n\t\n"), "nil": nil} {
		if got, err := ReadPrompt([]string{"hi"}, in, false); err != nil || got != "hi" {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
}

func TestReadPromptErrors(t *testing.T) {
	for _, c := range []struct {
		args  []string
		stdin string
	}{{nil, ""}, {nil, " \n"}, {[]string{"-"}, "\t"}, {[]string{""}, "piped"}, {[]string{" ", " "}, ""}} {
		if got, err := ReadPrompt(c.args, pipe(t, c.stdin), false); !errors.Is(err, ErrEmptyPrompt) || got != "" {
			t.Errorf("%q with %q: %q, %v", c.args, c.stdin, got, err)
		}
	}
	if ErrEmptyPrompt.Error() != "no prompt: the prompt is empty; give it as an argument, or pipe it in" {
		t.Errorf("ErrEmptyPrompt = %q", ErrEmptyPrompt)
	}
	broken := errors.New("input/output error")
	fail := readerFunc(func([]byte) (int, error) { return 0, broken })
	if got, err := ReadPrompt(nil, fail, false); !errors.Is(err, broken) || got != "" {
		t.Errorf("whole stdin: %q, %v", got, err)
	}
	got, err := ReadPrompt([]string{"hi"}, fail, false)
	if !errors.Is(err, broken) || got != "" || err.Error() != "reading standard input: input/output error" {
		t.Errorf("piped: %q, %v", got, err)
	}
}

func TestAppendPiped(t *testing.T) {
	for _, c := range []struct {
		piped string
		total int64
		want  string
	}{
		// A fence longer than any backtick run inside keeps the block whole.
		{"a ``` b", 7, "p\n\n````\na ``` b\n````"},
		{"x ```` y\n```", 12, "p\n\n`````\nx ```` y\n```\n`````"},
		{"bad \xff byte\n\n", 12, "p\n\n```\nbad \uFFFD byte\n```"},
		{"  \n", 3, "p"},
		{"head", 10, "p\n\n```\nhead\n```\n\n(The piped input was cut to its first 4 of 10 bytes.)"},
	} {
		if got := AppendPiped("p", []byte(c.piped), c.total); got != c.want {
			t.Errorf("%q: %q, want %q", c.piped, got, c.want)
		}
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
