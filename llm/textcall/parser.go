package textcall

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Kind is the kind of a parsed segment.
type Kind uint8

// Segment kinds.
const (
	KindText Kind = iota
	KindThinking
	KindCall
)

// Segment is one piece of a reply, in order: a run of text or thinking
// (possibly one of several pieces of the same run), or a complete tool
// call.
type Segment struct {
	Kind Kind
	// Text is the text or thinking of the piece.
	Text string
	// Name and Args describe a call. Args is the arguments object; for a
	// malformed call it is the raw text as a JSON string, so that the tool
	// chain answers with an error the model can act on.
	Name string
	Args json.RawMessage
	// Problem says what is wrong with a malformed call; empty when the
	// call is well formed.
	Problem string
}

// Tags of the Hermes/Qwen format.
const (
	openCall   = "<tool_call>"
	closeCall  = "</tool_call>"
	openThink  = "<think>"
	closeThink = "</think>"
	fence      = "```"
	// Qwen2.5-Coder wraps its calls in the tag its prompt lists tools in.
	openTools  = "<tools>"
	closeTools = "</tools>"
)

var markers = []string{openCall, closeCall, openThink, closeThink, openTools, closeTools}

type state uint8

const (
	inText state = iota
	inThink
	inCall
	inFence     // a fence whose content may be a call: held until it closes
	inFenceText // any other fence: streamed as text, tags inside are examples
)

// Parser splits streamed reply text into text, thinking and tool calls.
// Feed it the text deltas as they arrive, then call Flush once at the end.
// It recognises <tool_call>{"name":…,"arguments":…}</tool_call>, fenced
// ```json blocks holding such an object (or an array of them) when
// nothing but calls follows them, and <think>…</think>. A tag inside a
// code fence of another language is an example and stays text. A Parser is
// not safe for concurrent use.
type Parser struct {
	// Known, when set, reports whether a tool exists. A parser with Known
	// set and Strict true takes only well-formed calls of known tools and
	// leaves everything else as text (auto-detection); otherwise every
	// <tool_call> is a call, malformed ones included.
	Known  func(name string) bool
	Strict bool
	// Types, when set, returns the JSON Schema type of a tool's
	// parameter; it decides how the values of XML-style calls
	// (<function=…><parameter=…>) are read: strings stay strings, other
	// values are read as JSON.
	Types func(tool, param string) string

	st        state
	buf       []byte // bytes not yet classified
	lineStart bool   // only blanks were classified since the last line break (or nothing was)
	started   bool
	// call state
	call     []byte
	scan     int
	inString bool
	escaped  bool
	open     string // the tag that opened the call
	close    string // the tag that closes it
	jsonBody int8   // 0 unknown yet, 1 JSON, -1 XML-style
	// fence state
	fenceBuf []byte
	// held: fenced calls waiting to see whether text follows them
	held    []Segment
	heldWS  []byte
	heldRaw []byte
	out     []Segment
}

// Feed parses the next piece of text and returns the segments it
// completed. The returned slice is valid until the next call.
func (p *Parser) Feed(s string) []Segment {
	p.out = p.out[:0]
	if !p.started {
		p.started, p.lineStart = true, true
	}
	p.buf = append(p.buf, s...)
	p.run(false)
	return p.out
}

// Flush ends the reply: an unterminated call is closed (and taken when
// its JSON is complete), held fenced calls become calls, partial tags
// become text.
func (p *Parser) Flush() []Segment {
	p.out = p.out[:0]
	p.run(true)
	switch p.st {
	case inCall:
		p.finishCall(true)
	case inFence:
		p.text(string(p.fenceBuf))
		p.fenceBuf = p.fenceBuf[:0]
	case inThink:
		if len(p.buf) > 0 {
			p.emit(Segment{Kind: KindThinking, Text: string(p.buf)})
		}
	default:
		if len(p.buf) > 0 {
			p.text(string(p.buf))
		}
	}
	p.buf = p.buf[:0]
	p.st = inText
	if len(p.held) > 0 {
		p.out = append(p.out, p.held...)
		p.held, p.heldWS, p.heldRaw = nil, nil, nil
	}
	return p.out
}

func (p *Parser) emit(s Segment) {
	if s.Kind != KindCall && s.Text == "" {
		return
	}
	if n := len(p.out); n > 0 && s.Kind != KindCall && p.out[n-1].Kind == s.Kind {
		p.out[n-1].Text += s.Text
		return
	}
	p.out = append(p.out, s)
}

// text emits visible text, releasing held fenced calls as text when it is
// not blank.
func (p *Parser) text(s string) {
	if s == "" {
		return
	}
	if len(p.held) > 0 {
		if strings.TrimSpace(s) == "" {
			p.heldWS = append(p.heldWS, s...)
			return
		}
		held := string(p.heldRaw) + string(p.heldWS)
		p.held, p.heldWS, p.heldRaw = nil, nil, nil
		s = held + s
	}
	// A line counts as starting while only blanks follow its break, so a
	// fence indented by blanks sent in an earlier piece is still seen.
	if k := strings.LastIndexByte(s, '\n'); k >= 0 {
		p.lineStart = lineBlank([]byte(s[k+1:]))
	} else {
		p.lineStart = p.lineStart && lineBlank([]byte(s))
	}
	p.emit(Segment{Kind: KindText, Text: s})
}

// call emits a call, after any held fenced calls (which a call confirms).
func (p *Parser) callSeg(s Segment) {
	if len(p.held) > 0 {
		p.out = append(p.out, p.held...)
		p.held, p.heldWS, p.heldRaw = nil, nil, nil
	}
	p.out = append(p.out, s)
}

// run classifies as much of the buffer as it can. At the end (final) no
// more bytes will come, so partial tags are text.
func (p *Parser) run(final bool) {
	for len(p.buf) > 0 {
		var progressed bool
		switch p.st {
		case inText:
			progressed = p.runText(final)
		case inThink:
			progressed = p.runThink(final)
		case inCall:
			progressed = p.runCall()
		case inFence, inFenceText:
			progressed = p.runFence(final)
		}
		if !progressed {
			return
		}
	}
}

// lineBlank reports whether buf[from:to] holds only spaces and tabs.
func lineBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

func (p *Parser) runText(final bool) bool {
	b := p.buf
	lineFrom := 0
	atStart := p.lineStart
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\n' {
			lineFrom, atStart = i+1, true
			continue
		}
		if c == '`' && atStart && lineBlank(b[lineFrom:i]) {
			rest := b[i:]
			if len(rest) < len(fence) && bytes.HasPrefix([]byte(fence), rest) && !final {
				p.text(string(b[:lineFrom]))
				p.buf = append(p.buf[:0], b[lineFrom:]...)
				return false
			}
			if bytes.HasPrefix(rest, []byte(fence)) {
				nl := bytes.IndexByte(rest, '\n')
				if nl < 0 {
					if final {
						break
					}
					p.text(string(b[:lineFrom]))
					p.buf = append(p.buf[:0], b[lineFrom:]...)
					return false
				}
				info := strings.ToLower(strings.TrimSpace(strings.TrimLeft(string(rest[:nl]), "`")))
				p.text(string(b[:lineFrom]))
				line := b[lineFrom : i+nl+1]
				if info == "" || info == "json" || info == "tool_call" || info == "tool_code" {
					p.st = inFence
					p.fenceBuf = append(p.fenceBuf[:0], line...)
				} else {
					p.st = inFenceText
					p.text(string(line))
				}
				p.buf = append(p.buf[:0], b[i+nl+1:]...)
				return true
			}
		}
		if c != '<' {
			if c != ' ' && c != '\t' {
				atStart = false
			}
			continue
		}
		rest := b[i:]
		for _, m := range markers {
			if bytes.HasPrefix(rest, []byte(m)) {
				p.text(string(b[:i]))
				p.buf = append(p.buf[:0], b[i+len(m):]...)
				switch m {
				case openCall, openTools:
					p.st, p.call, p.scan, p.inString, p.escaped, p.jsonBody = inCall, p.call[:0], 0, false, false, 0
					p.open, p.close = m, closeCall
					if m == openTools {
						p.close = closeTools
					}
				case openThink:
					p.st = inThink
				}
				// A stray closing tag is dropped.
				return true
			}
			if !final && len(rest) < len(m) && strings.HasPrefix(m, string(rest)) {
				p.text(string(b[:i]))
				p.buf = append(p.buf[:0], rest...)
				return false
			}
		}
		atStart = false
	}
	if !final && atStart && lineFrom < len(b) && lineBlank(b[lineFrom:]) {
		// Blanks that may indent a fence wait for the rest of their line.
		p.text(string(b[:lineFrom]))
		p.buf = append(p.buf[:0], b[lineFrom:]...)
		return false
	}
	p.text(string(b))
	p.buf = p.buf[:0]
	return false
}

func (p *Parser) runThink(final bool) bool {
	b := p.buf
	if i := bytes.Index(b, []byte(closeThink)); i >= 0 {
		p.emit(Segment{Kind: KindThinking, Text: string(b[:i])})
		p.buf = append(p.buf[:0], b[i+len(closeThink):]...)
		p.st = inText
		return true
	}
	keep := 0
	if !final {
		keep = partialSuffix(b, closeThink)
	}
	p.emit(Segment{Kind: KindThinking, Text: string(b[:len(b)-keep])})
	p.buf = append(p.buf[:0], b[len(b)-keep:]...)
	return false
}

// partialSuffix returns the length of the longest suffix of b that is a
// proper prefix of tag.
func partialSuffix(b []byte, tag string) int {
	for n := min(len(tag)-1, len(b)); n > 0; n-- {
		if strings.HasPrefix(tag, string(b[len(b)-n:])) {
			return n
		}
	}
	return 0
}

// runCall moves bytes into the call until its closing tag, which counts
// only outside JSON strings. A repeated opening tag before the JSON starts
// is dropped.
func (p *Parser) runCall() bool {
	p.call = append(p.call, p.buf...)
	p.buf = p.buf[:0]
	c := p.call
	for i := p.scan; i < len(c); i++ {
		ch := c[i]
		if p.jsonBody == 0 {
			switch ch {
			case ' ', '\t', '\r', '\n':
			case '{', '[':
				p.jsonBody = 1
			default:
				p.jsonBody = -1
			}
		}
		if p.inString {
			switch {
			case p.escaped:
				p.escaped = false
			case ch == '\\':
				p.escaped = true
			case ch == '"':
				p.inString = false
			}
			continue
		}
		switch ch {
		case '"':
			p.inString = p.jsonBody == 1
		case '<':
			rest := c[i:]
			if len(rest) < len(p.close) && (strings.HasPrefix(p.close, string(rest)) || strings.HasPrefix(p.open, string(rest))) {
				p.scan = i
				return false
			}
			if bytes.HasPrefix(rest, []byte(p.close)) {
				p.buf = append(p.buf[:0], c[i+len(p.close):]...)
				p.call = c[:i]
				p.finishCall(false)
				return true
			}
			if bytes.HasPrefix(rest, []byte(p.open)) {
				if len(bytes.TrimSpace(c[:i])) == 0 {
					// <tool_call><tool_call>{…}: one call.
					p.call = append(c[:i], c[i+len(p.open):]...)
					c = p.call
					p.jsonBody = 0
					i--
					continue
				}
				// A new call starts before this one was closed.
				p.buf = append(p.buf[:0], c[i:]...)
				p.call = c[:i]
				p.finishCall(false)
				return true
			}
		}
	}
	p.scan = len(c)
	return false
}

// finishCall turns the collected call text into a segment.
func (p *Parser) finishCall(unterminated bool) {
	raw := string(p.call)
	p.call, p.st = p.call[:0], inText
	body := strings.TrimSpace(raw)
	open, close := p.open, p.close
	if unterminated {
		// A closing tag inside what looked like a string: the JSON was
		// broken; cut there.
		if i := strings.Index(body, close); i >= 0 {
			rest := body[i+len(close):]
			body = strings.TrimSpace(body[:i])
			defer p.text(rest)
		}
	}
	calls, problem := p.decode(body)
	if p.Strict {
		if problem != "" || !p.allKnown(calls) {
			p.text(open + raw)
			if !unterminated {
				p.text(close)
			}
			return
		}
	}
	if problem != "" {
		if unterminated {
			problem = "the <tool_call> tag was not closed and " + problem
		}
		p.callSeg(malformed(body, problem))
		return
	}
	for _, c := range calls {
		p.callSeg(c)
	}
}

func (p *Parser) allKnown(calls []Segment) bool {
	for _, c := range calls {
		if p.Known != nil && !p.Known(c.Name) {
			return false
		}
	}
	return len(calls) > 0
}
