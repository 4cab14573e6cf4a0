package anthropic

import (
	"context"
	jsonv1 "encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/internal/wire"
)

// passBlock is a content block rein does not model, kept verbatim with
// its position among the message's blocks.
type passBlock struct {
	At    int               `json:"at"`
	Block jsonv1.RawMessage `json:"block"`
}

// messageExtra is the shape of Message.Extra for replies from this API.
type messageExtra struct {
	// StopReason is the raw stop reason when it is not one of end_turn,
	// tool_use or max_tokens (stop_sequence, pause_turn, refusal, …).
	StopReason   string  `json:"stop_reason,omitempty"`
	StopSequence *string `json:"stop_sequence,omitempty"`
	// Blocks are content blocks of types rein does not model
	// (server_tool_use, web_search_tool_result, …), sent back verbatim
	// at their position on later turns.
	Blocks []passBlock `json:"blocks,omitempty"`
	// Events are stream events of unknown types, kept for inspection;
	// they are never sent back.
	Events []jsonv1.RawMessage `json:"events,omitempty"`
}

// finish ends the stream at message_stop.
func (d *decoder) finish() {
	d.finished = true
	stop, known := stopReason(d.stop)
	if !known || d.stop == "stop_sequence" {
		d.extra.StopReason = d.stop
	}
	d.closeAll()
	if d.stop == "refusal" {
		d.e.Fail(&llm.Error{Code: llm.CodeUnknown, Provider: d.provider,
			Message: "the model declined to answer (stop reason refusal); change or remove the request before going on"})
		return
	}
	d.e.Finish(stop)
}

// stopReason maps the API's stop reason; known is false for reasons
// without an exact neutral equivalent.
func stopReason(s string) (llm.StopReason, bool) {
	switch s {
	case "end_turn", "stop_sequence":
		return llm.StopEnd, true
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopLength, s == "max_tokens"
	case "tool_use":
		return llm.StopToolUse, true
	case "refusal":
		return llm.StopError, false
	case "":
		return "", true
	}
	// pause_turn and reasons added later end the turn; the raw reason is
	// kept in Message.Extra so that a caller can continue a paused turn.
	return llm.StopEnd, false
}

// closeAll closes every open block (pass-through blocks included) and
// records the message's extra data on the emitter.
func (d *decoder) closeAll() {
	for i := range d.blocks {
		if d.blocks[i].open {
			d.close(&d.blocks[i])
		}
	}
	ex := d.extra
	if ex.StopReason == "" && ex.StopSequence == nil && ex.Blocks == nil && ex.Events == nil {
		return
	}
	d.e.SetExtra(ex.encode())
}

// encode writes the extra data as JSON. Raw blocks and events are
// embedded as they came: the scanner validated them.
func (ex *messageExtra) encode() jsonv1.RawMessage {
	n := 64 + len(ex.StopReason)
	for _, b := range ex.Blocks {
		n += len(b.Block) + 32
	}
	for _, e := range ex.Events {
		n += len(e) + 1
	}
	out := append(make([]byte, 0, n), '{')
	field := func(name string) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, '"'), name...), '"', ':')
	}
	if ex.StopReason != "" {
		field("stop_reason")
		out, _ = jsontext.AppendQuote(out, ex.StopReason)
	}
	if ex.StopSequence != nil {
		field("stop_sequence")
		out, _ = jsontext.AppendQuote(out, *ex.StopSequence)
	}
	if len(ex.Blocks) > 0 {
		field("blocks")
		out = append(out, '[')
		for i, b := range ex.Blocks {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, `{"at":`...)
			out = strconv.AppendInt(out, int64(b.At), 10)
			out = append(append(append(out, `,"block":`...), trimSpace(b.Block)...), '}')
		}
		out = append(out, ']')
	}
	if len(ex.Events) > 0 {
		field("events")
		out = append(out, '[')
		for i, e := range ex.Events {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, trimSpace(e)...)
		}
		out = append(out, ']')
	}
	return append(out, '}')
}

// streamError handles an error event sent inside the stream.
func (d *decoder) streamError(data []byte) {
	var ef errorFields
	if err := object(d.f.Error); err == nil {
		_ = json.Unmarshal(d.f.Error, &ef, decodeOpts)
	}
	typ, msg := str(ef.Type), str(ef.Message)
	full := msg
	switch {
	case typ != "" && msg != "":
		full = typ + ": " + msg
	case typ != "":
		full = typ
	case msg == "":
		msg = validText(trimSpace(data))
		full = "error event: " + msg
	}
	d.fail(&llm.Error{Code: classify(typ, msg), Provider: d.provider, Message: wire.Redact(full, d.secrets...)})
}

// classify maps the API's error types to error codes.
func classify(typ, msg string) llm.ErrorCode {
	switch typ {
	case "overloaded_error":
		return llm.CodeOverloaded
	case "rate_limit_error":
		return llm.CodeRateLimit
	case "api_error":
		return llm.CodeServerError
	case "authentication_error", "permission_error":
		return llm.CodeAuth
	case "billing_error":
		return llm.CodeBilling
	case "not_found_error":
		return llm.CodeModelNotFound
	case "request_too_large":
		return llm.CodeContextOverflow
	case "timeout_error":
		return llm.CodeTimeout
	case "invalid_request_error":
		switch c := llm.ClassifyText(msg); c {
		case llm.CodeContextOverflow, llm.CodeBilling:
			return c
		}
		return llm.CodeFormat
	}
	return llm.ClassifyText(typ + " " + msg)
}

// malformed reports an event that is not the JSON it should be. The
// request was fine and a new attempt may get a good stream, so it is
// classed server_error, as every provider classes a malformed chunk.
func (d *decoder) malformed(event string, data []byte, err error) error {
	se := &sse.Error{Event: event, Data: []byte(wire.Redact(string(data), d.secrets...)), Err: err}
	return &llm.Error{Code: llm.CodeServerError, Provider: d.provider, Message: wire.Redact(se.Error(), d.secrets...), Err: se}
}

func (d *decoder) protocol(msg string) error {
	return &llm.Error{Code: llm.CodeFormat, Provider: d.provider, Message: wire.Redact("unexpected stream: "+msg, d.secrets...)}
}

// readError classifies a failed read of the body of a request made with
// hctx, a child of ctx that is cancelled with wire.ErrIdle when the
// server stalls before sending headers. It returns nil for the end of the
// body while ctx is live, which the decoder reports itself.
func readError(ctx, hctx context.Context, err error, provider string, secrets []string) error {
	switch {
	case ctx.Err() != nil:
		return wire.TransportError(ctx, err, provider, secrets...)
	case errors.Is(context.Cause(hctx), wire.ErrIdle):
		return wire.TransportError(ctx, wire.ErrIdle, provider, secrets...)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, sse.ErrLineTooLong):
		return nil
	}
	return wire.TransportError(ctx, err, provider, secrets...)
}
