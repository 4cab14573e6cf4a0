package session

import (
	"bytes"
	"time"

	"github.com/reinhq/rein/llm"
)

// The fast path of the entry decoder: it decodes the lines this package
// writes straight into entries, without reflection, and gives up (returns
// false) on anything else, which then goes to encoding/json. FuzzDecodeEntry
// checks that whenever it succeeds it agrees with encoding/json, and
// TestFastDecoderKnowsEveryField that it knows every field of the types it
// decodes.

// fastEntry decodes line into e. parent, when not nil, may return an
// existing string equal to a parent ID so that its memory is shared.
func (s *scanner) fastEntry(line []byte, e *Entry, parent func([]byte) (string, bool)) bool {
	s.Reset(line)
	ok := s.object(func(k []byte) uint32 {
		var ok bool
		switch string(k) {
		case "type":
			var t string
			t, ok = s.istr()
			e.Type = EntryType(t)
			return bit(0, ok)
		case "id":
			e.ID, ok = s.str()
			return bit(1, ok)
		case "parent":
			if parent == nil {
				e.Parent, ok = s.str()
				return bit(2, ok)
			}
			s.Peek()
			start := s.Offset()
			raw := s.Str()
			if !s.exact(raw, start) {
				return 0
			}
			if parent != nil {
				if p, hit := parent(raw); hit {
					e.Parent = p
					return bit(2, true)
				}
			}
			e.Parent = s.keep(raw)
			return bit(2, true)
		case "timestamp":
			return bit(3, s.time(&e.Timestamp))
		case "message":
			m := &s.messageSlab.take(1, 64)[0]
			e.Message = m
			return bit(4, s.message(m))
		case "provider":
			e.Provider, ok = s.istr()
			return bit(5, ok)
		case "model":
			e.Model, ok = s.istr()
			return bit(6, ok)
		case "thinking":
			var t string
			t, ok = s.istr()
			e.Thinking = llm.ThinkingLevel(t)
			return bit(7, ok)
		case "tools":
			e.Tools, ok = s.strings()
			return bit(8, ok)
		case "summary":
			e.Summary, ok = s.str()
			return bit(9, ok)
		case "first_kept":
			e.FirstKept, ok = s.str()
			return bit(10, ok)
		case "tokens_before":
			e.TokensBefore, ok = s.int()
			return bit(11, ok)
		case "files_read":
			e.FilesRead, ok = s.strings()
			return bit(12, ok)
		case "files_modified":
			e.FilesModified, ok = s.strings()
			return bit(13, ok)
		case "from":
			e.From, ok = s.str()
			return bit(14, ok)
		case "target":
			e.Target, ok = s.str()
			return bit(15, ok)
		case "label":
			e.Label, ok = s.str()
			return bit(16, ok)
		case "name":
			e.Name, ok = s.str()
			return bit(17, ok)
		case "kind":
			e.Kind, ok = s.istr()
			return bit(18, ok)
		case "data":
			e.Data, ok = s.raw()
			return bit(19, ok)
		}
		return 0
	})
	return ok && s.End() == nil
}

func bit(n uint, ok bool) uint32 {
	if !ok {
		return 0
	}
	return 1 << n
}

// time reads a timestamp: the usual spelling by utcTime, any other by
// time.Time.UnmarshalJSON, as encoding/json does.
func (s *scanner) time(t *time.Time) bool {
	if s.Peek() != '"' {
		return false
	}
	in, start := s.Input(), s.Offset()
	if k := bytes.IndexByte(in[start+1:min(len(in), start+32)], '"'); k >= 0 {
		if v, ok := utcTime(in[start+1 : start+1+k]); ok {
			*t = v
			s.SetOffset(start + k + 2)
			return true
		}
	}
	s.Str()
	return s.ok() && t.UnmarshalJSON(in[start:s.Offset()]) == nil
}

func (s *scanner) message(m *llm.Message) bool {
	return s.object(func(k []byte) uint32 {
		var ok bool
		switch string(k) {
		case "role":
			var r string
			r, ok = s.istr()
			m.Role = llm.Role(r)
			return bit(0, ok)
		case "content":
			m.Content, ok = s.contents()
			return bit(1, ok)
		case "tool_call_id":
			m.ToolCallID, ok = s.str()
			return bit(2, ok)
		case "tool_name":
			m.ToolName, ok = s.istr()
			return bit(3, ok)
		case "is_error":
			m.IsError, ok = s.bool()
			return bit(4, ok)
		case "provider":
			m.Provider, ok = s.istr()
			return bit(5, ok)
		case "model":
			m.Model, ok = s.istr()
			return bit(6, ok)
		case "api":
			var a string
			a, ok = s.istr()
			m.API = llm.API(a)
			return bit(7, ok)
		case "response_id":
			m.ResponseID, ok = s.str()
			return bit(8, ok)
		case "usage":
			u := &s.usageSlab.take(1, 128)[0]
			m.Usage = u
			return bit(9, s.usage(u))
		case "stop_reason":
			var r string
			r, ok = s.istr()
			m.StopReason = llm.StopReason(r)
			return bit(10, ok)
		case "error_code":
			var c string
			c, ok = s.istr()
			m.ErrorCode = llm.ErrorCode(c)
			return bit(11, ok)
		case "error_message":
			m.ErrorMessage, ok = s.str()
			return bit(12, ok)
		case "timestamp":
			return bit(13, s.time(&m.Timestamp))
		case "extra":
			m.Extra, ok = s.raw()
			return bit(14, ok)
		case "notes":
			m.Notes, ok = s.strings()
			return bit(15, ok)
		}
		return 0
	})
}

// contents reads an array of content blocks into a slice of exactly the
// right length, decoding them in place in the content slab; null gives
// nil, as the encoder writes a nil Content.
func (s *scanner) contents() ([]llm.Content, bool) {
	if s.Null() {
		return nil, true
	}
	if !s.Array() {
		return nil, false
	}
	slab := &s.contentSlab
	n := 0
	for ; s.Element(n); n++ {
		if !s.content(slab.next(n, 128)) {
			slab.drop(n + 1)
			return nil, false
		}
	}
	if !s.ok() {
		slab.drop(n)
		return nil, false
	}
	if n == 0 {
		return []llm.Content{}, true
	}
	return slab.take(n, 128), true
}

func (s *scanner) content(c *llm.Content) bool {
	return s.object(func(k []byte) uint32 {
		var ok bool
		switch string(k) {
		case "type":
			var t string
			t, ok = s.istr()
			c.Type = llm.ContentType(t)
			return bit(0, ok)
		case "text":
			c.Text, ok = s.str()
			return bit(1, ok)
		case "signature":
			c.Signature, ok = s.str()
			return bit(2, ok)
		case "redacted":
			c.Redacted, ok = s.bool()
			return bit(3, ok)
		case "data":
			c.Data, ok = s.str()
			return bit(4, ok)
		case "mime_type":
			c.MIMEType, ok = s.istr()
			return bit(5, ok)
		case "id":
			c.ID, ok = s.str()
			return bit(6, ok)
		case "name":
			c.Name, ok = s.istr()
			return bit(7, ok)
		case "arguments":
			c.Arguments, ok = s.raw()
			return bit(8, ok)
		case "extra":
			c.Extra, ok = s.raw()
			return bit(9, ok)
		}
		return 0
	})
}

func (s *scanner) usage(u *llm.Usage) bool {
	return s.object(func(k []byte) uint32 {
		var ok bool
		switch string(k) {
		case "input":
			u.Input, ok = s.int()
			return bit(0, ok)
		case "output":
			u.Output, ok = s.int()
			return bit(1, ok)
		case "cache_read":
			u.CacheRead, ok = s.int()
			return bit(2, ok)
		case "cache_write":
			u.CacheWrite, ok = s.int()
			return bit(3, ok)
		case "total":
			u.Total, ok = s.int()
			return bit(4, ok)
		case "cost":
			return bit(5, s.cost(&u.Cost))
		}
		return 0
	})
}

func (s *scanner) cost(c *llm.Cost) bool {
	return s.object(func(k []byte) uint32 {
		var ok bool
		switch string(k) {
		case "input":
			c.Input, ok = s.float()
			return bit(0, ok)
		case "output":
			c.Output, ok = s.float()
			return bit(1, ok)
		case "cache_read":
			c.CacheRead, ok = s.float()
			return bit(2, ok)
		case "cache_write":
			c.CacheWrite, ok = s.float()
			return bit(3, ok)
		case "total":
			c.Total, ok = s.float()
			return bit(4, ok)
		}
		return 0
	})
}
