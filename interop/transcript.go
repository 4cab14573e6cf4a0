package interop

import (
	"bufio"
	"fmt"
	"html"
	"sort"
	"strings"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// transcript is the active branch of a session for people: turns, with
// each tool call beside its result, and the usage per model.
type transcript struct {
	title string
	meta  []string
	turns []turn
	usage []usageRow
}

type turn struct {
	role  llm.Role
	texts []string // text and thinking ("thinking: …") in order
	calls []shownCall
	note  string // a summary entry's kind
}

type shownCall struct {
	name, args, result string
	isError, missing   bool
}

type usageRow struct {
	model                                string
	turns, input, output, cacheR, cacheW int
	cost                                 float64
}

func buildTranscript(s *Session, o Options) *transcript {
	red := o.Redact
	if red == nil {
		red = func(s string) string { return s }
	}
	t := &transcript{title: "Session " + s.Header.ID}
	for i := range s.Entries {
		if e := &s.Entries[i]; e.Type == session.TypeSessionInfo && e.Name != "" {
			t.title = red(e.Name)
		}
	}
	t.meta = append(t.meta, "id "+s.Header.ID, "created "+s.Header.Created.UTC().Format("2006-01-02 15:04 UTC"))
	if s.Header.Cwd != "" {
		t.meta = append(t.meta, "workspace "+red(s.Header.Cwd))
	}
	if src := s.Header.Source; src != nil {
		t.meta = append(t.meta, fmt.Sprintf("imported from %s %s (%s)", src.Format, src.Version, src.ID))
	}
	c := session.BuildContext(s.Entries, session.LastLeaf(s.Entries))
	results := map[string]*llm.Message{}
	for i := range c.Messages {
		if m := &c.Messages[i]; m.Role == llm.RoleToolResult {
			results[m.ToolCallID] = m
		}
	}
	usage := map[string]*usageRow{}
	for i := range c.Messages {
		m := &c.Messages[i]
		switch m.Role {
		case llm.RoleToolResult:
			continue
		case llm.RoleAssistant:
			key := m.Model
			if key == "" {
				key = "(unknown model)"
			}
			row := usage[key]
			if row == nil {
				row = &usageRow{model: key}
				usage[key] = row
			}
			row.turns++
			if u := m.Usage; u != nil {
				row.input += u.Input
				row.output += u.Output
				row.cacheR += u.CacheRead
				row.cacheW += u.CacheWrite
				row.cost += u.Cost.Total
			}
		}
		tu := turn{role: m.Role}
		for _, b := range m.Content {
			switch b.Type {
			case llm.ContentText:
				tu.texts = append(tu.texts, red(b.Text))
			case llm.ContentThinking:
				if b.Text != "" {
					tu.texts = append(tu.texts, "thinking: "+red(b.Text))
				}
			case llm.ContentImage:
				tu.texts = append(tu.texts, "[image "+b.MIMEType+"]")
			case llm.ContentToolCall:
				sc := shownCall{name: b.Name, args: red(b.RawArguments())}
				if res := results[b.ID]; res != nil {
					sc.result, sc.isError = red(res.Text()), res.IsError
				} else {
					sc.missing = true
				}
				tu.calls = append(tu.calls, sc)
			}
		}
		t.turns = append(t.turns, tu)
	}
	for _, row := range usage {
		t.usage = append(t.usage, *row)
	}
	sort.Slice(t.usage, func(i, j int) bool { return t.usage[i].model < t.usage[j].model })
	return t
}

func roleName(r llm.Role) string {
	if r == llm.RoleAssistant {
		return "Assistant"
	}
	return "User"
}

// writeMarkdown writes the active branch as Markdown: tool calls in
// <details> blocks that fold, and a usage table.
func writeMarkdown(w *bufio.Writer, s *Session, o Options, r *Report) error {
	t := buildTranscript(s, o)
	fmt.Fprintf(w, "# %s\n\n", oneLine(t.title))
	for _, m := range t.meta {
		fmt.Fprintf(w, "- %s\n", m)
	}
	for _, tu := range t.turns {
		r.Messages++
		fmt.Fprintf(w, "\n## %s\n\n", roleName(tu.role))
		for _, x := range tu.texts {
			fmt.Fprintf(w, "%s\n\n", x)
		}
		for _, c := range tu.calls {
			r.Calls++
			mark := "✓"
			if c.isError || c.missing {
				mark = "✗"
			}
			fmt.Fprintf(w, "<details><summary>%s <code>%s</code> %s</summary>\n\n", mark, html.EscapeString(c.name), html.EscapeString(clip(oneLine(c.args), 120)))
			fmt.Fprintf(w, "%s\n\n%s\n\n</details>\n\n", fence(c.args, "json"), fence(resultText(c), ""))
		}
	}
	fmt.Fprintf(w, "\n## Usage\n\n| model | turns | input | output | cache read | cache write | cost |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, u := range t.usage {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %.4f |\n", strings.ReplaceAll(u.model, "|", `\|`), u.turns, u.input, u.output, u.cacheR, u.cacheW, u.cost)
	}
	return nil
}

func resultText(c shownCall) string {
	if c.missing {
		return "(no result recorded)"
	}
	return c.result
}

// fence puts text in a code fence longer than any run of backticks in it.
func fence(text, lang string) string {
	n := 3
	for run, i := 0, 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

const htmlHead = `<!doctype html>
<html><head><meta charset="utf-8"><title>%s</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
.user{background:#eef4ff;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
.assistant{padding:.25rem 1rem;margin:1rem 0;border-left:3px solid #ccc}
pre{background:#f6f6f6;padding:.5rem;overflow:auto;white-space:pre-wrap}
details{margin:.5rem 0}summary{cursor:pointer;font-family:monospace}
.err summary{color:#b00}.thinking{color:#777;font-style:italic}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:right}td:first-child,th:first-child{text-align:left}
</style></head><body>
`

// writeHTML writes the active branch as one HTML page: tool calls in
// <details> blocks that fold, and a usage table.
func writeHTML(w *bufio.Writer, s *Session, o Options, r *Report) error {
	t := buildTranscript(s, o)
	esc := html.EscapeString
	fmt.Fprintf(w, htmlHead, esc(oneLine(t.title)))
	fmt.Fprintf(w, "<h1>%s</h1>\n<p>%s</p>\n", esc(oneLine(t.title)), esc(strings.Join(t.meta, " · ")))
	for _, tu := range t.turns {
		r.Messages++
		class := "user"
		if tu.role == llm.RoleAssistant {
			class = "assistant"
		}
		fmt.Fprintf(w, "<div class=\"%s\"><h3>%s</h3>\n", class, roleName(tu.role))
		for _, x := range tu.texts {
			if rest, ok := strings.CutPrefix(x, "thinking: "); ok {
				fmt.Fprintf(w, "<p class=\"thinking\">%s</p>\n", esc(rest))
				continue
			}
			fmt.Fprintf(w, "<pre>%s</pre>\n", esc(x))
		}
		for _, c := range tu.calls {
			r.Calls++
			cls := ""
			if c.isError || c.missing {
				cls = ` class="err"`
			}
			fmt.Fprintf(w, "<details%s><summary>%s %s</summary><pre>%s</pre><pre>%s</pre></details>\n", cls, esc(c.name), esc(clip(oneLine(c.args), 120)), esc(c.args), esc(resultText(c)))
		}
		fmt.Fprintf(w, "</div>\n")
	}
	fmt.Fprintf(w, "<h2>Usage</h2>\n<table><tr><th>model</th><th>turns</th><th>input</th><th>output</th><th>cache read</th><th>cache write</th><th>cost</th></tr>\n")
	for _, u := range t.usage {
		fmt.Fprintf(w, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%.4f</td></tr>\n", esc(u.model), u.turns, u.input, u.output, u.cacheR, u.cacheW, u.cost)
	}
	fmt.Fprintf(w, "</table>\n</body></html>\n")
	return nil
}
