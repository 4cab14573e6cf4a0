package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/reinhq/rein/coding"
)

// styles are the UI's colours; plain styles (NO_COLOR) carry none.
type styles struct {
	user, dim, tool, ok, bad, notice, status, title, sel lipgloss.Style
	code, italic, link                                   lipgloss.Style
}

func newStyles(plain bool) styles {
	if plain {
		s := lipgloss.NewStyle()
		return styles{s, s, s, s, s, s, s, s.Bold(true), s.Reverse(true), s, s.Italic(true), s.Underline(true)}
	}
	c := func(x string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(x)) }
	return styles{
		user:   c("6").Bold(true),
		dim:    c("8"),
		tool:   c("6"),
		ok:     c("2"),
		bad:    c("1"),
		notice: c("3"),
		status: c("7").Background(lipgloss.Color("236")),
		title:  lipgloss.NewStyle().Bold(true),
		sel:    lipgloss.NewStyle().Reverse(true),
		code:   c("5"),
		italic: lipgloss.NewStyle().Italic(true),
		link:   c("4").Underline(true),
	}
}

// view flags change how blocks render.
type viewFlags struct {
	thinking bool // show thinking text, not just a folded line
	tools    bool // expand tool calls to their arguments and output
}

type cached struct {
	rev, width int
	flags      viewFlags
	lines      []string
}

// renderer turns blocks into lines of a given width, caching each
// block's lines until it changes.
type renderer struct {
	st    styles
	plain bool
	md    *mdRenderer
	cache map[*Block]cached
	// live holds the finished paragraphs of streaming replies, so that
	// each frame renders only the paragraph being written.
	live map[*Block]*liveLines
}

// liveLines are the rendered lines of a streaming reply's text up to
// done (a paragraph boundary outside code fences), at width.
type liveLines struct {
	done, width int
	lines       []string
}

func newRenderer(plain bool) *renderer {
	return &renderer{st: newStyles(plain), plain: plain, cache: map[*Block]cached{}, live: map[*Block]*liveLines{}}
}

// Limits of what one block shows, so that a huge message or output
// cannot flood the screen (the session log keeps everything).
const (
	maxUserLines   = 12
	maxOutputLines = 24
	maxArgLines    = 24
)

// lines renders one block.
func (r *renderer) lines(b *Block, width int, f viewFlags) []string {
	width = max(width, 8)
	if c, ok := r.cache[b]; ok && c.rev == b.rev && c.width == width && c.flags == f {
		return c.lines
	}
	out := r.render(b, width, f)
	r.cache[b] = cached{rev: b.rev, width: width, flags: f, lines: out}
	return out
}

// forget drops cached blocks no longer in the transcript.
func (r *renderer) forget(blocks []*Block) {
	if len(r.cache) <= len(blocks) {
		return
	}
	keep := make(map[*Block]bool, len(blocks))
	for _, b := range blocks {
		keep[b] = true
	}
	for b := range r.cache {
		if !keep[b] {
			delete(r.cache, b)
		}
	}
	for b := range r.live {
		if !keep[b] {
			delete(r.live, b)
		}
	}
}

func (r *renderer) render(b *Block, width int, f viewFlags) []string {
	st := r.st
	switch b.Kind {
	case KindUser:
		text := b.Text
		ls := wrap(text, width-2)
		if len(ls) > maxUserLines {
			more := len(ls) - maxUserLines
			ls = append(ls[:maxUserLines], fmt.Sprintf("… %d more line%s", more, plural(more)))
		}
		out := []string{""}
		for i, l := range ls {
			p := "  "
			if i == 0 {
				p = "› "
			}
			out = append(out, st.user.Render(p+l))
		}
		return out
	case KindAssistant:
		if b.Live {
			return append([]string{""}, r.streaming(b, width)...)
		}
		delete(r.live, b)
		return append([]string{""}, r.markdown(b.Text, width)...)
	case KindThinking:
		n := strings.Count(strings.TrimSpace(b.Text), "\n") + 1
		if !f.thinking {
			label := fmt.Sprintf("▸ thinking · %d line%s (ctrl+t shows it)", n, plural(n))
			if b.Live {
				label = "▸ thinking…"
			}
			return []string{st.dim.Render(ansi.Truncate(label, width, "…"))}
		}
		out := []string{st.dim.Render("▾ thinking")}
		for _, l := range wrap(strings.TrimSpace(b.Text), width-2) {
			out = append(out, st.dim.Render("  "+l))
		}
		return out
	case KindTool:
		return r.tool(b, width, f)
	case KindNotice:
		var out []string
		for _, l := range wrap(b.Text, width-2) {
			out = append(out, st.notice.Render("· "+l))
		}
		return out
	case KindError:
		var out []string
		for i, l := range wrap(b.Text, width-2) {
			p := "  "
			if i == 0 {
				p = "✗ "
			}
			out = append(out, st.bad.Render(p+l))
		}
		return out
	}
	return nil
}

// streaming renders a reply still being written: its finished
// paragraphs once each, the paragraph being written every time. The
// whole reply is rendered again, as one document, when it ends.
func (r *renderer) streaming(b *Block, width int) []string {
	st := r.live[b]
	if st == nil || st.width != width || st.done > len(b.Text) {
		st = &liveLines{width: width}
		r.live[b] = st
	}
	for {
		end := paragraphEnd(b.Text, st.done)
		if end < 0 {
			break
		}
		if ls := r.markdown(b.Text[st.done:end], width); len(ls) > 0 {
			if len(st.lines) > 0 {
				st.lines = append(st.lines, "")
			}
			st.lines = append(st.lines, ls...)
		}
		st.done = end
	}
	out := st.lines
	if tail := r.markdown(b.Text[st.done:], width); len(tail) > 0 {
		out = append(append(out[:len(out):len(out)], ""), tail...)
	}
	return out
}

// paragraphEnd returns the end of the first complete paragraph of text
// after from (just past a blank line outside a code fence), or -1.
func paragraphEnd(text string, from int) int {
	fence := false
	i := from
	for i < len(text) {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			return -1
		}
		line := text[i : i+nl]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		next := i + nl + 1
		if !fence && strings.TrimSpace(line) == "" && i > from {
			return next
		}
		i = next
	}
	return -1
}

// markdown renders assistant text; text glamour cannot render (or a
// renderer that cannot be made) falls back to wrapped plain text.
func (r *renderer) markdown(text string, width int) []string {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if r.md == nil {
		r.md = newMarkdown(r.st)
	}
	ls := r.md.render(text, width)
	for i, l := range ls {
		if ansi.StringWidth(l) > width {
			ls[i] = ansi.Truncate(l, width, "")
		}
	}
	return trimBlank(ls)
}

func trimBlank(ls []string) []string {
	for len(ls) > 0 && strings.TrimSpace(ansi.Strip(ls[0])) == "" {
		ls = ls[1:]
	}
	for len(ls) > 0 && strings.TrimSpace(ansi.Strip(ls[len(ls)-1])) == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// tool renders a tool call: one line, or expanded its arguments (a diff
// for edits) and output.
func (r *renderer) tool(b *Block, width int, f viewFlags) []string {
	st := r.st
	mark := st.dim.Render("…")
	tail := ""
	switch {
	case !b.Done:
	case b.IsError:
		mark = st.bad.Render("✗")
		tail = " " + firstLine(b.Output)
	default:
		mark = st.ok.Render("✓")
		if n := lineCount(b.Output); n > 1 {
			tail = fmt.Sprintf(" %d lines", n)
		} else {
			tail = " " + firstLine(b.Output)
		}
	}
	for _, n := range b.Notes {
		tail += " [" + n + "]"
	}
	head := ansi.Truncate(st.tool.Render("● "+b.Name)+" "+summarize(b.Args), max(width-4, 4), "…")
	line := head + " " + mark + st.dim.Render(ansi.Truncate(tail, max(width-ansi.StringWidth(head)-2, 0), "…"))
	out := []string{ansi.Truncate(line, width, "")}
	if !f.tools {
		return out
	}
	for _, l := range capLines(argLines(b.Name, b.Args), maxArgLines) {
		out = append(out, "    "+r.diffStyle(ansi.Truncate(l, width-4, "…")))
	}
	if b.Done && b.Output != "" {
		out = append(out, st.dim.Render("    ── output"))
		for _, l := range capLines(strings.Split(strings.TrimRight(b.Output, "\n"), "\n"), maxOutputLines) {
			out = append(out, st.dim.Render("    "+ansi.Truncate(sanitize(l), width-4, "…")))
		}
	}
	return out
}

func (r *renderer) diffStyle(l string) string {
	switch {
	case strings.HasPrefix(l, "+"):
		return r.st.ok.Render(l)
	case strings.HasPrefix(l, "-"):
		return r.st.bad.Render(l)
	}
	return r.st.dim.Render(l)
}

// argLines shows a call's arguments: edits as a diff of old and new
// text, writes as the content, others as indented JSON.
func argLines(name, args string) []string {
	var v map[string]any
	if json.Unmarshal([]byte(args), &v) != nil {
		return strings.Split(sanitize(args), "\n")
	}
	if edits, ok := v["edits"].([]any); ok {
		var out []string
		for i, e := range edits {
			m, _ := e.(map[string]any)
			old, _ := m["old_text"].(string)
			nw, _ := m["new_text"].(string)
			if i > 0 {
				out = append(out, "…")
			}
			for _, l := range strings.Split(old, "\n") {
				out = append(out, "-"+sanitize(l))
			}
			for _, l := range strings.Split(nw, "\n") {
				out = append(out, "+"+sanitize(l))
			}
		}
		return out
	}
	if content, ok := v["content"].(string); ok && name == "write" {
		var out []string
		for _, l := range strings.Split(strings.TrimRight(content, "\n"), "\n") {
			out = append(out, "+"+sanitize(l))
		}
		return out
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return strings.Split(sanitize(string(b)), "\n")
}

// summarize shows a call's main argument briefly.
func summarize(args string) string {
	return oneLine(coding.DescribeCall(json.RawMessage(args)))
}

func capLines(ls []string, n int) []string {
	if len(ls) <= n {
		return ls
	}
	more := len(ls) - n
	return append(ls[:n:n], fmt.Sprintf("… %d more line%s", more, plural(more)))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	first, _, _ := strings.Cut(s, "\n")
	return sanitize(first)
}

func lineCount(s string) int {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

func oneLine(s string) string { return sanitize(strings.ReplaceAll(s, "\n", "⏎")) }

// sanitize removes control characters (escape sequences from tool
// output included) that would garble the screen.
func sanitize(s string) string {
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, s)
}

// wrap breaks text into lines of at most width cells, wide characters
// counted as two.
func wrap(s string, width int) []string {
	width = max(width, 4)
	var out []string
	for _, para := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		para = sanitize(para)
		if para == "" {
			out = append(out, "")
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(para, width, ""), "\n")...)
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
