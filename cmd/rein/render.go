package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
)

// printer renders loop events for people: assistant text as it streams,
// thinking and tool activity as short dimmed lines.
type printer struct {
	out   io.Writer // assistant text
	info  io.Writer // thinking, tool calls and results
	color bool
	// preview is how many lines of each tool result to show.
	preview int
	// showThinking prints reasoning text, not just a marker.
	showThinking bool

	inText     bool
	inThinking bool
	// shownError is the error message of the last failed reply printed.
	shownError string
	// byTool counts the tool calls shown, by tool.
	byTool map[string]int
	// lastLine is the id of the call whose line was printed last, so a
	// result that does not follow its own call line is labelled.
	lastLine string
}

const (
	ansiDim   = "\x1b[2m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
	ansiReset = "\x1b[0m"
)

func (p *printer) style(code, s string) string {
	if !p.color || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (p *printer) endBlock() {
	if p.inText || p.inThinking {
		fmt.Fprintln(p.out)
	}
	p.inText, p.inThinking = false, false
}

// event renders one loop event.
func (p *printer) event(ev agent.Event) {
	switch ev.Type {
	case agent.EventMessageUpdate:
		d := ev.Delta
		switch d.Type {
		case llm.EventTextStart:
			p.endBlock()
			fmt.Fprint(p.out, p.style(ansiBold, "● "))
			p.inText = true
		case llm.EventTextDelta:
			fmt.Fprint(p.out, d.Delta)
		case llm.EventThinkingStart:
			p.endBlock()
			if p.showThinking {
				fmt.Fprint(p.out, p.style(ansiDim, "  thinking: "))
				p.inThinking = true
			} else {
				fmt.Fprintln(p.info, p.style(ansiDim, "  (thinking…)"))
			}
		case llm.EventThinkingDelta:
			if p.showThinking {
				fmt.Fprint(p.out, p.style(ansiDim, d.Delta))
			}
		}
	case agent.EventMessageEnd:
		p.endBlock()
		m := ev.Message
		if m.Role == llm.RoleAssistant && m.Failed() {
			fmt.Fprintln(p.info, p.style(ansiRed, "  ✗ "+m.ErrorMessage))
			p.shownError = m.ErrorMessage
		}
		if m.Role == llm.RoleUser && ev.Turn > 0 {
			fmt.Fprintln(p.out, p.style(ansiCyan, "▸ "+m.Text()))
		}
	case agent.EventToolStart:
		p.endBlock()
		if p.byTool == nil {
			p.byTool = map[string]int{}
		}
		p.byTool[ev.Call.Name]++
		fmt.Fprintf(p.info, "  %s %s\n", p.style(ansiCyan, "→ "+ev.Call.Name), summarizeArgs(ev.Call))
		p.lastLine = ev.Call.ID
	case agent.EventToolEnd:
		if p.lastLine != ev.Call.ID {
			fmt.Fprintf(p.info, "  %s %s\n", p.style(ansiCyan, "← "+ev.Call.Name), summarizeArgs(ev.Call))
		}
		p.lastLine = ""
		p.result(ev)
	}
}

func (p *printer) result(ev agent.Event) {
	r := ev.Result
	text := r.Text()
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	mark := p.style(ansiGreen, "✓")
	if r.IsError {
		mark = p.style(ansiRed, "✗")
	}
	head := lines[0]
	if len(head) > 120 {
		head = head[:117] + "…"
	}
	n := len(lines)
	extra := ""
	if n > 1 {
		extra = fmt.Sprintf(" (%d lines)", n)
	}
	for _, note := range r.Notes {
		extra += " [" + note + "]"
	}
	show := max(1, p.preview)
	if show >= n || r.IsError {
		for i, l := range lines[:min(n, max(show, 3))] {
			if len(l) > 160 {
				l = l[:157] + "…"
			}
			if i == 0 {
				fmt.Fprintf(p.info, "    %s %s\n", mark, p.style(ansiDim, l))
			} else {
				fmt.Fprintf(p.info, "      %s\n", p.style(ansiDim, l))
			}
		}
		if n > max(show, 3) && r.IsError {
			fmt.Fprintf(p.info, "      %s\n", p.style(ansiDim, fmt.Sprintf("… %d more line%s", n-max(show, 3), plural(n-max(show, 3)))))
		}
		return
	}
	fmt.Fprintf(p.info, "    %s %s%s\n", mark, p.style(ansiDim, head), p.style(ansiDim, extra))
	for _, l := range lines[1:min(n, show)] {
		if len(l) > 160 {
			l = l[:157] + "…"
		}
		fmt.Fprintf(p.info, "      %s\n", p.style(ansiDim, l))
	}
	if n > show && show > 1 {
		fmt.Fprintf(p.info, "      %s\n", p.style(ansiDim, fmt.Sprintf("… %d more line%s", n-show, plural(n-show))))
	}
}

// summarizeArgs shows a tool call's main argument briefly.
func summarizeArgs(c *llm.Content) string {
	return truncateLine(coding.DescribeCall(c.Arguments), 100)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func truncateLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}
