package interop

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reinhq/rein/session"
)

// Format names a session format.
type Format string

// The formats of other harnesses, and rein's own.
const (
	Rein     Format = "rein"
	Pi       Format = "pi"
	Claude   Format = "claude"
	Codex    Format = "codex"
	OpenCode Format = "opencode"
)

// Transcript and bundle formats, written only.
const (
	Markdown Format = "md"
	HTML     Format = "html"
	Bundle   Format = "json"
)

// Formats lists the formats Read understands, in detection order.
var Formats = []Format{Rein, Pi, Claude, Codex, OpenCode}

// ParseFormat reads a format name as the command line spells it; "" and
// "auto" give "" (detect).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return "", nil
	case "claude", "claude-code", "claudecode":
		return Claude, nil
	case "markdown":
		return Markdown, nil
	case "bundle":
		return Bundle, nil
	}
	f := Format(strings.ToLower(s))
	switch f {
	case Rein, Pi, Codex, OpenCode, Markdown, HTML, Bundle:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q (one of rein, pi, claude, codex, opencode, md, html, json)", s)
}

// ErrExportFormat is ParseExportFormat's error: the name is not that of
// a format Export writes.
var ErrExportFormat = errors.New("give one of pi, claude, codex, opencode, md, html, json")

// ParseExportFormat reads the name of a format Export writes, spelled as
// ParseFormat accepts it: pi, claude, codex, opencode, md, html or json.
// Any other name, "", "auto" and rein's own format are ErrExportFormat.
func ParseExportFormat(s string) (Format, error) {
	f, err := ParseFormat(s)
	if err != nil || f == "" || f == Rein {
		return "", ErrExportFormat
	}
	return f, nil
}

// Conversation is a recording read into rein's terms: session entries
// forming a tree (parents before children), with where it came from.
type Conversation struct {
	Source  session.Source
	Cwd     string
	Created time.Time
	// Name is the title the recording gives the session, if any.
	Name    string
	Entries []session.Entry
	Report  Report
	// Children are the conversations of the sub-agents the recording
	// keeps beside it (Claude Code's subagents folder), each with Link
	// naming the call that started it; ImportChildren imports them.
	Children []*Conversation
	// Link is set on a child: the parent's call that started it, the
	// agent type and depth (ParentSession and ParentPath are filled in
	// when the parent is imported).
	Link *session.AgentLink
}

// Report says what an import or export carried over and what it did
// not. Nothing is dropped without an item here.
type Report struct {
	// Messages counts the messages written; Calls the structured tool
	// calls among them; TextCalls the calls turned into text (their tool
	// has no counterpart on the other side).
	Messages, Calls, TextCalls int
	// Synthetic counts the results made for calls the recording left
	// without one.
	Synthetic int
	// Merged counts messages folded into the one before them so that
	// roles alternate.
	Merged int
	// Dropped lists what was left out, with the reason.
	Dropped []Dropped
}

// Dropped is one thing left out: where (file:line when a line was
// skipped) and why.
type Dropped struct {
	Where string
	What  string
	Why   string
}

func (d Dropped) String() string {
	if d.Where == "" {
		return d.What + ": " + d.Why
	}
	return d.Where + ": " + d.What + ": " + d.Why
}

func (r *Report) drop(where, what, why string) {
	r.Dropped = append(r.Dropped, Dropped{Where: where, What: what, Why: why})
}

// Summary is the report in a few lines for people.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d messages, %d tool calls", r.Messages, r.Calls)
	if r.TextCalls > 0 {
		fmt.Fprintf(&b, ", %d calls to tools without a counterpart kept as text", r.TextCalls)
	}
	if r.Synthetic > 0 {
		fmt.Fprintf(&b, ", %d results marked not recorded", r.Synthetic)
	}
	if r.Merged > 0 {
		fmt.Fprintf(&b, ", %d messages merged so roles alternate", r.Merged)
	}
	if n := len(r.Dropped); n > 0 {
		fmt.Fprintf(&b, "; %d items dropped:", n)
		for i, d := range r.Dropped {
			if i == 20 {
				fmt.Fprintf(&b, "\n  … and %d more", n-20)
				break
			}
			b.WriteString("\n  " + d.String())
		}
	}
	return b.String()
}

// NotRecorded is the text of the result an import gives a call the
// recording has no result for.
const NotRecorded = "not recorded: the imported session has no result for this tool call"
