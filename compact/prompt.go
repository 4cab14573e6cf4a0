package compact

import (
	"fmt"
	"strings"

	"github.com/reinhq/rein/llm"
)

// Sections a summary is asked for, in order. The summariser is told to
// use them as headings; a summary is never rejected for lacking them
// (see Validate).
var Sections = []string{
	"Goal", "Decisions", "Progress", "Just done", "Next", "Open questions", "Files",
}

// IdentifierRule forbids shortening identifiers; it is part of every
// summary prompt.
const IdentifierRule = `Copy every identifier exactly as it appears, character for character: file paths, git hashes and other hashes, UUIDs, URLs, host names, IP addresses and ports, version numbers, environment variable names and values, error codes. Never shorten, abbreviate, reconstruct or paraphrase one. When unsure whether something is an identifier, copy it verbatim.`

const summarySystem = `You write the working memory of a software agent whose conversation is too long for its context window. The older part of the conversation will be replaced by your summary; the agent continues from the summary and the recent messages, which it still sees. Write for the agent, not for the user.

Use exactly these headings, in this order:
## Goal
The user's goal, quoted verbatim from their messages (every request still in force).
## Decisions
Each decision taken and why.
## Progress
Progress on every batch or loop as numbers ("17 of 43 files converted"), never "some".
## Just done
What was completed last.
## Next
What comes next: the immediate next action first.
## Open questions
Open questions and blockers, with the error messages that matter.
## Files
Files read and files modified, as full paths.

` + IdentifierRule + `

Tool output the agent no longer saw appears as a one-line stub ("[output elided to save context: …]"): say what the call was for if that matters, never invent its content.

Be complete but brief: keep facts, numbers and identifiers; drop pleasantries, repeated tool output and anything superseded. Reply with the summary only.`

const handoffSystem = `

This summary is a handoff briefing for a NEW MODEL taking over the session with a smaller context window. State clearly that the new model is now in charge of the task, and make the immediate next action explicit under "## Next".`

const mergeSystem = `You merge partial summaries of consecutive parts of one conversation into a single summary with the same headings (## Goal, ## Decisions, ## Progress, ## Just done, ## Next, ## Open questions, ## Files). Later parts win where they supersede earlier ones; keep every fact, number and identifier. ` + IdentifierRule + ` Reply with the merged summary only.`

// maxResultChars bounds one tool result in the transcript given to the
// summariser; the head and the tail are kept.
const maxResultChars = 6000

// Transcript renders msgs as the plain text a summariser reads. Tool
// output longer than 6,000 characters keeps its head and tail.
func Transcript(msgs []llm.Message) string {
	var b strings.Builder
	for i := range msgs {
		m := &msgs[i]
		switch {
		case IsSummary(m):
			continue // given separately as the previous summary
		case m.Role == llm.RoleUser:
			b.WriteString("[user]\n")
		case m.Role == llm.RoleAssistant:
			b.WriteString("[assistant]\n")
		default:
			status := "ok"
			if m.IsError {
				status = "error"
			}
			fmt.Fprintf(&b, "[tool result %s %s (%s)]\n", m.ToolName, m.ToolCallID, status)
		}
		for _, c := range m.Content {
			switch c.Type {
			case llm.ContentText:
				t := c.Text
				if m.Role == llm.RoleToolResult && len(t) > maxResultChars {
					t = t[:maxResultChars/2] + fmt.Sprintf("\n[… %d characters omitted …]\n", len(t)-maxResultChars) + t[len(t)-maxResultChars/2:]
				}
				b.WriteString(t)
				b.WriteByte('\n')
			case llm.ContentToolCall:
				fmt.Fprintf(&b, "call %s %s %s\n", c.ID, c.Name, c.RawArguments())
			case llm.ContentImage:
				fmt.Fprintf(&b, "[image %s]\n", c.MIMEType)
			}
		}
		b.WriteByte('\n')
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// Request is one call of a summariser: a system prompt and one user
// message.
type Request struct {
	System string
	Prompt string
}

// summaryRequest builds the request summarising msgs (one chunk, or all
// of the compacted part).
func summaryRequest(in *Input, msgs []llm.Message, ids []string) Request {
	sys := summarySystem
	if in.Handoff {
		sys += handoffSystem
	}
	var b strings.Builder
	if in.Previous != "" {
		b.WriteString("This conversation was compacted before. Update the previous summary with what happened since: keep what still holds, change what changed, add what is new. Do not summarise the summary.\n\n<previous-summary>\n")
		b.WriteString(in.Previous)
		b.WriteString("\n</previous-summary>\n\n")
	}
	b.WriteString("<conversation>\n")
	b.WriteString(Transcript(msgs))
	b.WriteString("</conversation>\n")
	if in.Latest != "" {
		b.WriteString("\nThe user's latest request, which is still being worked on (quote it under ## Goal):\n<latest>\n")
		b.WriteString(in.Latest)
		b.WriteString("\n</latest>\n")
	}
	if len(ids) > 0 {
		b.WriteString("\nThe recent messages still refer to these identifiers; the summary must contain each of them verbatim:\n")
		for _, id := range ids {
			b.WriteString("- ")
			b.WriteString(id)
			b.WriteByte('\n')
		}
	}
	if in.Focus != "" {
		b.WriteString("\nThe user asked the summary to focus on: ")
		b.WriteString(in.Focus)
		b.WriteByte('\n')
	}
	return Request{System: sys, Prompt: b.String()}
}

func mergeRequest(parts []string) Request {
	var b strings.Builder
	for i, p := range parts {
		fmt.Fprintf(&b, "<part n=\"%d\">\n%s\n</part>\n\n", i+1, p)
	}
	return Request{System: mergeSystem, Prompt: b.String()}
}

const repairSystem = `You complete the working memory of a software agent. Its summary lost some identifiers that the recent messages still refer to. For each identifier listed, write one line: the identifier copied exactly, then in a few words what it is and what was done with it. ` + IdentifierRule + ` Reply with those lines only.`

// repairContext bounds the text quoted around one identifier in a repair
// request, on each side.
const repairContext = 160

// repairRequest asks for the identifiers in missing only: each is quoted
// with the text around its first occurrence in the compacted part, so
// the request stays small whatever the size of the part.
func repairRequest(in *Input, missing []string) Request {
	text := in.Previous + "\n" + Transcript(in.Messages)
	var b strings.Builder
	b.WriteString("Identifiers the summary must carry, each with where it occurred:\n\n")
	for _, id := range missing {
		fmt.Fprintf(&b, "- %s\n", id)
		if i := strings.Index(text, id); i >= 0 {
			from, to := max(0, i-repairContext), min(len(text), i+len(id)+repairContext)
			ex := strings.ToValidUTF8(strings.Join(strings.Fields(text[from:to]), " "), "")
			fmt.Fprintf(&b, "  context: …%s…\n", ex)
		}
	}
	return Request{System: repairSystem, Prompt: b.String()}
}
