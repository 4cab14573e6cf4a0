package coding

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxPipedInput caps the piped text ReadPrompt appends to a prompt
// given as arguments, so that `cat big.log | rein -p "summarise"` cannot
// fill the context window with one message.
const MaxPipedInput = 256 << 10

// MaxPromptInput caps a prompt ReadPrompt reads whole from standard
// input; the rest is not read.
const MaxPromptInput = 16 << 20

// ErrEmptyPrompt is ReadPrompt's error for a prompt that is empty or
// only white space, or that would be read from an interactive terminal.
// A front-end reports it as a usage error.
var ErrEmptyPrompt = errors.New("no prompt: the prompt is empty; give it as an argument, or pipe it in")

// ReadPrompt returns the prompt of a one-shot run from a front-end's
// arguments and its standard input:
//
//   - without arguments, or with the one argument "-", the prompt is
//     stdin's text, up to MaxPromptInput bytes. Without arguments and
//     with stdinTerminal set (stdin is an interactive terminal, which
//     the caller decides: this package knows nothing of terminals)
//     nothing is read and the error is ErrEmptyPrompt;
//   - otherwise the prompt is the arguments joined by spaces, and text
//     piped to stdin (a pipe, a socket or a regular file; not a device
//     such as a terminal or /dev/null; any reader that is not an
//     *os.File) is appended as a fenced block (see AppendPiped). stdin
//     is read to its end; what passes MaxPipedInput is counted, not kept.
//
// A prompt that is empty or only white space is ErrEmptyPrompt; an error
// reading stdin is returned as it is (whole-stdin prompt) or wrapped as
// "reading standard input: …" (piped text), with no prompt.
func ReadPrompt(args []string, stdin io.Reader, stdinTerminal bool) (string, error) {
	if len(args) == 0 || (len(args) == 1 && args[0] == "-") {
		if len(args) == 0 && stdinTerminal {
			return "", ErrEmptyPrompt
		}
		b, err := io.ReadAll(io.LimitReader(stdin, MaxPromptInput))
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(string(b)) == "" {
			return "", ErrEmptyPrompt
		}
		return string(b), nil
	}
	prompt := strings.Join(args, " ")
	if strings.TrimSpace(prompt) == "" {
		return "", ErrEmptyPrompt
	}
	if !stdinPiped(stdin) {
		return prompt, nil
	}
	piped, total, err := readCapped(stdin, MaxPipedInput)
	if err != nil {
		return "", fmt.Errorf("reading standard input: %w", err)
	}
	return AppendPiped(prompt, piped, total), nil
}

// stdinPiped reports whether r carries piped input: a pipe, a file or a
// socket, not a terminal or a device such as /dev/null. Readers that are
// not files (in tests) count as piped.
func stdinPiped(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	m := fi.Mode()
	return m&os.ModeNamedPipe != 0 || m&os.ModeSocket != 0 || m.IsRegular()
}

// readCapped reads up to n bytes of r and counts the rest.
func readCapped(r io.Reader, n int) (head []byte, total int64, err error) {
	head, err = io.ReadAll(io.LimitReader(r, int64(n)))
	if err != nil {
		return nil, 0, err
	}
	rest, err := io.Copy(io.Discard, r)
	return head, int64(len(head)) + rest, err
}

// AppendPiped returns prompt followed by piped text as a fenced block.
// The fence is longer than any backtick run inside, which keeps the
// block whole; invalid UTF-8 becomes U+FFFD. When total, the size of the
// whole input, exceeds len(piped), a note after the block says the input
// was cut and to how many bytes. Text that is empty or only white space
// leaves prompt as it is.
func AppendPiped(prompt string, piped []byte, total int64) string {
	text := strings.ToValidUTF8(string(piped), "\uFFFD")
	if strings.TrimSpace(text) == "" {
		return prompt
	}
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	var b strings.Builder
	b.WriteString(prompt)
	b.WriteString("\n\n")
	b.WriteString(fence)
	b.WriteString("\n")
	b.WriteString(strings.TrimRight(text, "\n"))
	b.WriteString("\n")
	b.WriteString(fence)
	if total > int64(len(piped)) {
		fmt.Fprintf(&b, "\n\n(The piped input was cut to its first %d of %d bytes.)", len(piped), total)
	}
	return b.String()
}
