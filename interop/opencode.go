package interop

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/reinhq/rein/internal/jsonread"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// OpenCodeVersion is the opencode version an export names by default.
const OpenCodeVersion = "1.18.33"

// ocExport is the document `opencode export` prints and `opencode
// import` reads: the session's info and its messages with their parts.
type ocExport struct {
	Info     ocSession   `json:"info"`
	Messages []ocMessage `json:"messages"`
}

type ocSession struct {
	ID        string `json:"id"`
	Slug      string `json:"slug"`
	Version   string `json:"version"`
	ProjectID string `json:"projectID"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	Time      ocTime `json:"time"`
}

type ocTime struct {
	Created   int64 `json:"created,omitempty"`
	Updated   int64 `json:"updated,omitempty"`
	Completed int64 `json:"completed,omitempty"`
	Start     int64 `json:"start,omitempty"`
	End       int64 `json:"end,omitempty"`
}

type ocMessage struct {
	Info  ocInfo   `json:"info"`
	Parts []ocPart `json:"parts"`
}

type ocInfo struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Role       string          `json:"role"`
	Time       ocTime          `json:"time"`
	ParentID   string          `json:"parentID,omitempty"`
	Agent      string          `json:"agent,omitempty"`
	Model      *ocModel        `json:"model,omitempty"`
	ModelID    string          `json:"modelID,omitempty"`
	ProviderID string          `json:"providerID,omitempty"`
	Mode       string          `json:"mode,omitempty"`
	Path       *ocPath         `json:"path,omitempty"`
	Cost       *float64        `json:"cost,omitempty"`
	Tokens     *ocTokens       `json:"tokens,omitempty"`
	Finish     string          `json:"finish,omitempty"`
	Error      json.RawMessage `json:"error,omitempty"`
}

type ocModel struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
}

type ocPath struct {
	Cwd  string `json:"cwd"`
	Root string `json:"root"`
}

type ocTokens struct {
	Input     int `json:"input"`
	Output    int `json:"output"`
	Reasoning int `json:"reasoning"`
	Cache     struct {
		Read  int `json:"read"`
		Write int `json:"write"`
	} `json:"cache"`
}

type ocPart struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionID"`
	MessageID string          `json:"messageID"`
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Synthetic bool            `json:"synthetic,omitempty"`
	CallID    string          `json:"callID,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	State     *ocState        `json:"state,omitempty"`
	Mime      string          `json:"mime,omitempty"`
	URL       string          `json:"url,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	Time      *ocTime         `json:"time,omitempty"`
}

type ocState struct {
	Status   string          `json:"status"`
	Input    json.RawMessage `json:"input"`
	Output   string          `json:"output,omitempty"`
	Error    string          `json:"error,omitempty"`
	Title    string          `json:"title,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Time     *ocTime         `json:"time,omitempty"`
}

// scanOpenCode reads the JSON document of `opencode export`: one linear
// conversation, decoded a message at a time. An assistant message's
// steps (step-start parts) become one rein assistant message each,
// followed by the results of its calls.
func scanOpenCode(s *scan) error {
	c, name := s.c, s.name
	cr := &countReader{r: s.r}
	dec := jsontext.NewDecoder(cr, jsonread.Options)
	var info ocSession
	bad := func(err error) error {
		return fmt.Errorf("%s: not an opencode export: %s", name, jsonWhere(cr, dec.InputOffset(), err))
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		if err == nil {
			err = errors.New("the document is not a JSON object")
		}
		return bad(err)
	}
	parent := ""
	var err error
	add := func(id string, ts time.Time, m llm.Message) {
		if err != nil {
			return
		}
		m.Timestamp = ts
		err = s.add(session.Entry{Type: session.TypeMessage, ID: id, Parent: parent, Timestamp: ts, Message: &m}, false)
		parent = id
	}
	mi := 0
	for dec.PeekKind() != '}' {
		tok, terr := dec.ReadToken()
		if terr != nil {
			return bad(terr)
		}
		switch tok.String() {
		case "info":
			if err := jsonv2.UnmarshalDecode(dec, &info, jsonread.Options); err != nil {
				return bad(err)
			}
		case "messages":
			if dec.PeekKind() == 'n' {
				_, _ = dec.ReadToken()
				continue
			}
			if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
				if err == nil {
					err = errors.New(`"messages" is not an array`)
				}
				return bad(err)
			}
			for dec.PeekKind() != ']' {
				var msg ocMessage
				if err := jsonv2.UnmarshalDecode(dec, &msg, jsonread.Options); err != nil {
					return bad(err)
				}
				c.readOCMessage(&msg, name, mi, add)
				mi++
				if err != nil {
					return err
				}
			}
			if _, err := dec.ReadToken(); err != nil {
				return bad(err)
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return bad(err)
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return bad(err)
	}
	if info.ID == "" || !strings.HasPrefix(info.ID, "ses") {
		return fmt.Errorf("%s: %w: no opencode session info (info.id)", name, ErrUnrecognised)
	}
	c.Source = session.Source{Format: string(OpenCode), Version: info.Version, Path: name, ID: info.ID}
	c.Cwd, c.Created, c.Name = info.Directory, millis(info.Time.Created), info.Title
	return nil
}

// readOCMessage reads one message of an opencode export (the mi-th).
func (c *Conversation) readOCMessage(msg *ocMessage, name string, mi int, add func(string, time.Time, llm.Message)) {
	where := fmt.Sprintf("%s: messages[%d]", name, mi)
	ts := millis(msg.Info.Time.Created)
	switch msg.Info.Role {
	case "user":
		m := llm.Message{Role: llm.RoleUser}
		for _, p := range msg.Parts {
			switch p.Type {
			case "text":
				if !p.Synthetic {
					m.Content = append(m.Content, llm.Text(p.Text))
				}
			case "file":
				m.Content = append(m.Content, llm.Text(fmt.Sprintf("[file %s (%s)]", p.Filename, p.Mime)))
				c.Report.drop(where, "an attached file", "kept as its name: the export holds a reference, not the content rein would send")
			default:
				c.Report.drop(where, "a "+p.Type+" part of a user message", "rein has no such part")
			}
		}
		if len(m.Content) > 0 {
			add(msg.Info.ID, ts, m)
		}
	case "assistant":
		c.readOCAssistant(msg, where, ts, add)
	default:
		c.Report.drop(where, "a message with the role "+msg.Info.Role, "rein has no such role")
	}
}

// countReader counts the newlines of what was read through it and keeps
// the last piece read, so that an error can name its line.
type countReader struct {
	r      io.Reader
	off    int64 // where last starts
	before int   // newlines before last
	last   []byte
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.before += bytes.Count(c.last, []byte{'\n'})
		c.off += int64(len(c.last))
		c.last = append(c.last[:0], p[:n]...)
	}
	return n, err
}

func (c *Conversation) readOCAssistant(msg *ocMessage, where string, ts time.Time, add func(string, time.Time, llm.Message)) {
	base := llm.Message{Role: llm.RoleAssistant, Provider: msg.Info.ProviderID, Model: msg.Info.ModelID}
	if t := msg.Info.Tokens; t != nil {
		base.Usage = &llm.Usage{Input: t.Input, Output: t.Output + t.Reasoning, CacheRead: t.Cache.Read, CacheWrite: t.Cache.Write}
		base.Usage.Total = base.Usage.Input + base.Usage.Output + base.Usage.CacheRead + base.Usage.CacheWrite
		if msg.Info.Cost != nil {
			base.Usage.Cost.Total = *msg.Info.Cost
		}
	}
	if len(msg.Info.Error) > 0 && string(msg.Info.Error) != "null" {
		base.StopReason, base.ErrorMessage = llm.StopError, string(msg.Info.Error)
	}
	step := 0
	cur := base
	var results []llm.Message
	flush := func() {
		if len(cur.Content) == 0 {
			return
		}
		id := msg.Info.ID
		if step > 0 {
			id = fmt.Sprintf("%s.%d", msg.Info.ID, step)
		}
		if len(cur.ToolCalls()) > 0 && cur.StopReason == "" {
			cur.StopReason = llm.StopToolUse
		}
		add(id, ts, cur)
		for i, r := range results {
			add(fmt.Sprintf("%s.r%d", id, i), ts, r)
		}
		step++
		cur, results = base, nil
		cur.Usage = nil // counted once, on the first step
		base.Usage = nil
	}
	for _, p := range msg.Parts {
		switch p.Type {
		case "step-start":
			flush()
		case "text":
			cur.Content = append(cur.Content, llm.Text(p.Text))
		case "reasoning":
			if p.Text != "" {
				cur.Content = append(cur.Content, llm.Thinking(p.Text, ""))
			}
		case "tool":
			if p.State == nil {
				continue
			}
			name, args, _ := toRein(OpenCode, p.Tool, p.State.Input)
			cur.Content = append(cur.Content, llm.ToolCall(p.CallID, name, args))
			switch p.State.Status {
			case "completed":
				results = append(results, llm.ToolResult(p.CallID, name, false, llm.Text(p.State.Output)))
			case "error":
				results = append(results, llm.ToolResult(p.CallID, name, true, llm.Text(p.State.Error)))
			}
		case "step-finish", "snapshot", "patch":
			// Bookkeeping of opencode's (token counts, file snapshots).
		default:
			c.Report.drop(where, "a "+p.Type+" part", "rein has no such part")
		}
	}
	flush()
}

// jsonWhere says where a JSON document read through cr stops being
// valid: at off, or at the end when the document is cut off.
func jsonWhere(cr *countReader, off int64, err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "the document is cut off: " + err.Error()
	}
	if off < cr.off || off > cr.off+int64(len(cr.last)) {
		return fmt.Sprintf("byte %d: %v", off, err)
	}
	line := 1 + cr.before + bytes.Count(cr.last[:off-cr.off], []byte{'\n'})
	return fmt.Sprintf("line %d: %v", line, err)
}

// ocIDs makes opencode identifiers: a prefix, 12 hex digits that grow
// in conversation order (opencode sorts messages and parts by id), and
// 14 letters and digits derived from the rein session's id.
type ocIDs struct {
	base uint64
	n    uint64
	tail string
}

func newOCIDs(sessionID string, created time.Time) *ocIDs {
	sum := sha256.Sum256([]byte(sessionID))
	const (
		digits = "0123456789"
		upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		lower  = "abcdefghijklmnopqrstuvwxyz"
	)
	alphabet := digits + upper + lower
	tail := make([]byte, 14)
	for i := range tail {
		tail[i] = alphabet[int(sum[i])%len(alphabet)]
	}
	return &ocIDs{base: uint64(created.UnixMilli()) * 0x1000, tail: string(tail)}
}

func (g *ocIDs) next(prefix string) string {
	g.n++
	return fmt.Sprintf("%s_%012x%s", prefix, (g.base+g.n)&0xffffffffffff, g.tail)
}

// writeOpenCode writes the active branch of s as the document `opencode
// import` reads. Each assistant message becomes an opencode assistant
// message whose tool parts hold the calls with their results.
func writeOpenCode(w *bufio.Writer, s *Session, o Options, r *Report) error {
	h := s.Header
	created := h.Created
	if created.IsZero() {
		created = o.now()
	}
	ids := newOCIDs(h.ID, created)
	ctx := session.BuildContext(s.Entries, session.LastLeaf(s.Entries))
	version := o.Version
	if version == "" {
		version = OpenCodeVersion
	}
	sid := ids.next("ses")
	title := "rein session " + h.ID
	for i := range s.Entries {
		if e := &s.Entries[i]; e.Type == session.TypeSessionInfo && e.Name != "" {
			title = e.Name
		}
	}
	doc := ocExport{Info: ocSession{ID: sid, Slug: "rein-" + h.ID[:min(8, len(h.ID))], Version: version, ProjectID: "global", Directory: h.Cwd,
		Title: title, Time: ocTime{Created: created.UnixMilli(), Updated: o.now().UnixMilli()}}}
	results := map[string]*llm.Message{}
	for i := range ctx.Messages {
		if m := &ctx.Messages[i]; m.Role == llm.RoleToolResult {
			results[m.ToolCallID] = m
		}
	}
	// The document is written a message at a time, as one Encode of it
	// with this indentation would write it, never whole in memory.
	out := newJSONOut(w)
	out.indent("  ", "  ")
	if err := out.str("{\n  \"info\": "); err != nil {
		return err
	}
	if err := out.value(&doc.Info); err != nil {
		return err
	}
	out.indent("    ", "  ")
	n := 0
	write := func(om *ocMessage) error {
		sep := ",\n    "
		if n == 0 {
			sep = ",\n  \"messages\": [\n    "
		}
		n++
		if err := out.str(sep); err != nil {
			return err
		}
		return out.value(om)
	}
	lastUser, lastModel := "", &ocModel{ProviderID: "rein", ModelID: "unknown"}
	for i := range ctx.Messages {
		m := &ctx.Messages[i]
		ms := m.Timestamp.UnixMilli()
		if m.Timestamp.IsZero() {
			ms = created.UnixMilli()
		}
		switch m.Role {
		case llm.RoleUser:
			mid := ids.next("msg")
			om := ocMessage{Info: ocInfo{ID: mid, SessionID: sid, Role: "user", Time: ocTime{Created: ms}, Agent: "build", Model: lastModel}}
			for _, c := range m.Content {
				text := c.Text
				if c.Type == llm.ContentImage {
					text = "[image " + c.MIMEType + "]"
					r.drop("", "an image", "opencode's export holds files by reference; kept as a note")
				}
				om.Parts = append(om.Parts, ocPart{ID: ids.next("prt"), SessionID: sid, MessageID: mid, Type: "text", Text: text})
			}
			lastUser = mid
			if err := write(&om); err != nil {
				return err
			}
			r.Messages++
		case llm.RoleAssistant:
			mid := ids.next("msg")
			provider, model := m.Provider, m.Model
			if provider == "" {
				provider = "rein"
			}
			if model == "" {
				model = "unknown"
			}
			lastModel = &ocModel{ProviderID: provider, ModelID: model}
			zero := 0.0
			tokens := &ocTokens{}
			if u := m.Usage; u != nil {
				tokens.Input, tokens.Output, tokens.Cache.Read, tokens.Cache.Write = u.Input, u.Output, u.CacheRead, u.CacheWrite
				zero = u.Cost.Total
			}
			finish := "stop"
			if len(m.ToolCalls()) > 0 {
				finish = "tool-calls"
			}
			om := ocMessage{Info: ocInfo{ID: mid, SessionID: sid, Role: "assistant", Time: ocTime{Created: ms, Completed: ms}, ParentID: lastUser,
				ModelID: model, ProviderID: provider, Mode: "build", Agent: "build", Path: &ocPath{Cwd: h.Cwd, Root: h.Cwd}, Cost: &zero, Tokens: tokens, Finish: finish}}
			part := func(p ocPart) {
				p.ID, p.SessionID, p.MessageID = ids.next("prt"), sid, mid
				om.Parts = append(om.Parts, p)
			}
			part(ocPart{Type: "step-start"})
			for _, c := range m.Content {
				switch c.Type {
				case llm.ContentText:
					part(ocPart{Type: "text", Text: c.Text, Time: &ocTime{Start: ms, End: ms}})
				case llm.ContentThinking:
					if c.Text != "" {
						part(ocPart{Type: "reasoning", Text: c.Text, Time: &ocTime{Start: ms, End: ms}})
					}
					if c.Signature != "" {
						r.drop("", "the signature of a thinking block", "opencode's export has no place rein can fill for it")
					}
				case llm.ContentToolCall:
					name, args := fromRein(OpenCode, c.Name, c.Arguments)
					if !c.ArgumentsObject() {
						args = mustJSON(map[string]string{"_raw": c.RawArguments()})
					}
					st := &ocState{Status: "completed", Input: args, Title: name, Metadata: json.RawMessage(`{}`), Time: &ocTime{Start: ms, End: ms}}
					if res := results[c.ID]; res == nil {
						st.Status, st.Error = "error", NotRecorded
					} else if res.IsError {
						st.Status, st.Error = "error", res.Text()
					} else {
						st.Output = res.Text()
					}
					part(ocPart{Type: "tool", CallID: c.ID, Tool: name, State: st})
					r.Calls++
				}
			}
			if err := write(&om); err != nil {
				return err
			}
			r.Messages++
		}
	}
	if n == 0 {
		return out.str(",\n  \"messages\": null\n}\n")
	}
	return out.str("\n  ]\n}\n")
}
