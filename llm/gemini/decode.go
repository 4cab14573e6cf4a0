package gemini

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/internal/wire"
)

// GeneratedIDPrefix starts the id rein gives a function call that
// arrived without one (Gemini 2.5 sends none). Such ids are stable for a
// given response id and are not sent back to Gemini: the call and its
// result are matched by name and order instead.
const GeneratedIDPrefix = "gemini_"

// decoder turns SSE chunks into emitter calls. It serves one stream at a
// time; reset prepares it for the next, keeping its buffers.
type decoder struct {
	e        *llm.Emitter
	r        *sse.Reader
	p        *parser // made by run, kept by reset: a pointer, so that reset copies little
	provider string
	secrets  []string

	started bool
	open    int // index of the open text or thinking block, -1 if none
	openTyp llm.ContentType
	openSig bool
	calls   int
	genSalt string

	finish     string
	responseID string
	model      string
	// lastModel is the model of the stream before, kept so that a stream
	// of the same model does not allocate its name again.
	lastModel string
	chunks    int
	extras    []keptField
	extraIdx  map[extraKey]int

	// yield is the consumer of the stream; final wraps it (see wrap).
	yield, final func(llm.Event, error) bool
}

// reset readies d for a new stream, keeping the reader, the parser's
// buffers and the capacity of the kept fields.
func (d *decoder) reset(provider string, secrets []string) {
	*d = decoder{r: d.r, p: d.p, extras: d.extras[:0], final: d.final, lastModel: d.lastModel,
		provider: provider, secrets: secrets, open: -1}
}

// wrap returns the yield function the emitter uses: yield, with the
// message-level extra fields attached to the final event's message. Call
// it after reset; the function is made once and serves every stream.
func (d *decoder) wrap(yield func(llm.Event, error) bool) func(llm.Event, error) bool {
	d.yield = yield
	if d.final == nil {
		d.final = func(ev llm.Event, err error) bool {
			if ev.Message != nil && (ev.Type == llm.EventDone || ev.Type == llm.EventError) {
				if x := d.messageExtra(); x != nil {
					ev.Message.Extra = x
				}
			}
			return d.yield(ev, err)
		}
	}
	return d.final
}

// run reads the whole stream and ends it with exactly one final event
// (unless the consumer stopped first).
func (d *decoder) run(ctx context.Context, body io.Reader) {
	if d.r == nil {
		d.r = sse.NewReader(body)
	} else {
		d.r.Reset(body)
	}
	if d.p == nil {
		d.p = new(parser)
	}
	r := d.r
	defer r.Reset(nil)
	for {
		ev, err := r.Next()
		if err != nil {
			d.end(ctx, err)
			return
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		if err := d.p.parse(data); err != nil {
			d.e.Fail(d.malformed(ev.Type, data, err))
			return
		}
		d.chunks++
		if !d.apply() {
			return
		}
	}
}

func (d *decoder) malformed(typ string, data []byte, err error) error {
	se := &sse.Error{Event: typ, Data: bytes.Clone(data[:min(len(data), 512)]), Err: err}
	return &llm.Error{Code: llm.CodeServerError, Provider: d.provider,
		Message: wire.Redact("the server sent a malformed stream chunk: "+se.Error(), d.secrets...), Err: se}
}

// apply feeds the parsed chunk to the emitter. It returns false when the
// stream has ended (failed, or the consumer stopped).
func (d *decoder) apply() bool {
	c := &d.p.c
	e := d.e
	if c.errRaw != nil {
		e.Fail(d.chunkError(c.errRaw))
		return false
	}
	if !d.started {
		d.started = true
		if string(c.modelVersion) != d.lastModel {
			d.lastModel = string(c.modelVersion)
		}
		d.responseID, d.model = string(c.responseID), d.lastModel
		if !e.Start(llm.Message{ResponseID: d.responseID, Model: d.model}) {
			return false
		}
	} else {
		if len(c.responseID) > 0 && string(c.responseID) != d.responseID {
			d.responseID = string(c.responseID)
			e.SetResponseID(d.responseID)
		}
		if len(c.modelVersion) > 0 && string(c.modelVersion) != d.model {
			d.model = string(c.modelVersion)
			e.SetModel(d.model)
		}
	}
	for i := range c.parts {
		if !d.part(&c.parts[i]) {
			return false
		}
	}
	if len(c.finishReason) > 0 {
		d.finish = string(c.finishReason)
	}
	if c.hasUsage {
		u := c.usage
		input := u.prompt + u.toolUse - u.cached
		*e.Usage() = llm.Usage{Input: max(input, 0), Output: u.candidates + u.thoughts, CacheRead: u.cached, Reasoning: max(u.thoughts, 0)}
	}
	for _, f := range c.extras {
		d.keep(f)
	}
	return true
}

// part applies one content part. Consecutive text parts merge into one
// text block, consecutive thought parts into one thinking block; a part
// carrying a second signature, or fields rein does not model, starts a
// block of its own so that nothing is attached to the wrong text.
func (d *decoder) part(pt *part) bool {
	e := d.e
	switch {
	case pt.call:
		if !d.closeOpen() {
			return false
		}
		return d.functionCall(pt)
	case pt.hasText:
		typ := llm.ContentText
		if pt.thought {
			typ = llm.ContentThinking
		}
		if len(pt.extra) > 0 {
			if !d.closeOpen() {
				return false
			}
			if len(pt.text) == 0 {
				// Mark that the part had a (blank) text field, so that it is
				// sent back as a text part.
				pt.extra = append(pt.extra, field{[]byte(`"text"`), []byte(`""`)})
			}
			_, ok := e.Whole(llm.Content{Type: typ, Text: string(pt.text), Signature: string(pt.sig), Extra: object(pt.extra, nil)})
			return ok
		}
		if len(pt.text) == 0 && len(pt.sig) == 0 {
			return true // an empty part carries nothing to keep
		}
		if d.open < 0 || d.openTyp != typ || (d.openSig && len(pt.sig) > 0) {
			if !d.closeOpen() {
				return false
			}
			var ok bool
			if typ == llm.ContentText {
				d.open, ok = e.TextStart()
			} else {
				d.open, ok = e.ThinkingStart()
			}
			if !ok {
				return false
			}
			d.openTyp, d.openSig = typ, false
		}
		if len(pt.sig) > 0 {
			if b := e.Block(d.open); b != nil {
				b.Signature = string(pt.sig)
			}
			d.openSig = true
		}
		return e.Delta(d.open, string(pt.text))
	default:
		// A part kind rein does not model (executable code, inline data,
		// …): kept verbatim as an empty text block whose Extra is the part.
		if !d.closeOpen() {
			return false
		}
		_, ok := e.Whole(llm.Content{Type: llm.ContentText, Extra: compact(pt.raw)})
		return ok
	}
}

func (d *decoder) closeOpen() bool {
	if d.open < 0 {
		return true
	}
	i := d.open
	d.open = -1
	return d.e.End(i)
}

func (d *decoder) functionCall(pt *part) bool {
	id := string(pt.callID)
	if id == "" {
		id = d.generatedID()
	}
	args := json.RawMessage("{}")
	if a := bytes.TrimSpace(pt.callArgs); len(a) > 0 && string(a) != "null" {
		args = compact(a)
	}
	var extra json.RawMessage
	if len(pt.extra) > 0 || len(pt.callExtra) > 0 {
		extra = object(pt.extra, pt.callExtra)
	}
	d.calls++
	_, ok := d.e.Whole(llm.Content{Type: llm.ContentToolCall, ID: id, Name: string(pt.callName),
		Arguments: args, Signature: string(pt.sig), Extra: extra})
	return ok
}

// generatedID returns a stable id for the next call without one: the
// response id and the call's position. Without a response id a random
// salt, drawn once per stream, keeps ids unique.
func (d *decoder) generatedID() string {
	salt := d.responseID
	if salt == "" {
		if d.genSalt == "" {
			var b [6]byte
			_, _ = rand.Read(b[:])
			d.genSalt = hex.EncodeToString(b[:])
		}
		salt = d.genSalt
	}
	return GeneratedIDPrefix + salt + "_" + strconv.Itoa(d.calls)
}

// end finishes the stream once the body has been read to its end or
// failed.
func (d *decoder) end(ctx context.Context, err error) {
	e := d.e
	if !errors.Is(err, io.EOF) {
		le := wire.TransportError(ctx, err, d.provider, d.secrets...)
		if x := llm.AsError(le); x.Code == llm.CodeServerError {
			switch {
			case errors.Is(err, io.ErrUnexpectedEOF):
				x.Message = "the stream was cut off in the middle of an event"
			case errors.Is(err, sse.ErrLineTooLong):
				x.Message = "the stream sent a line longer than the reader accepts"
			}
		}
		e.Fail(le)
		return
	}
	if d.finish == "" {
		msg := "the stream ended before the model reported a finish reason"
		if d.chunks == 0 {
			msg = "the stream ended without sending any data"
		}
		if r := d.blockReason(); r != "" {
			e.Fail(&llm.Error{Code: llm.CodeUnknown, Provider: d.provider, Message: "the prompt was blocked: " + r})
			return
		}
		e.Fail(&llm.Error{Code: llm.CodeServerError, Provider: d.provider, Message: msg})
		return
	}
	stop, ferr := d.stopReason()
	if ferr != nil {
		e.Fail(ferr)
		return
	}
	e.Finish(stop)
}

// stopReason maps Gemini's finishReason to a stop reason, or to an error
// for replies the model did not finish normally.
func (d *decoder) stopReason() (llm.StopReason, error) {
	code := llm.CodeUnknown
	var why string
	switch d.finish {
	case "STOP":
		if d.calls > 0 {
			return llm.StopToolUse, nil
		}
		return llm.StopEnd, nil
	case "MAX_TOKENS":
		return llm.StopLength, nil
	case "SAFETY", "IMAGE_SAFETY":
		why = "the reply was blocked by the safety filters"
	case "RECITATION", "IMAGE_RECITATION":
		why = "the reply was blocked because it recited protected material"
	case "PROHIBITED_CONTENT", "IMAGE_PROHIBITED_CONTENT", "BLOCKLIST", "SPII":
		why = "the reply was blocked for prohibited content"
	case "LANGUAGE":
		why = "the reply was blocked because the language is not supported"
	case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS":
		// The model wrote a call it could not complete; sampling again
		// usually succeeds, so the failure is classed as transient.
		code = llm.CodeServerError
		why = "the model produced an invalid function call"
	case "MISSING_THOUGHT_SIGNATURE":
		code = llm.CodeFormat
		why = "the request lacked a thought signature the model requires"
	default:
		why = "the model stopped without finishing its reply"
	}
	msg := fmt.Sprintf("%s (finishReason %s)", why, d.finish)
	if fm := d.extraString(scopeCandidate, `"finishMessage"`); fm != "" {
		msg += ": " + fm
	}
	return llm.StopError, &llm.Error{Code: code, Provider: d.provider, Message: wire.Redact(msg, d.secrets...)}
}
