package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/internal/wire"
)

// decoder turns the events of one stream into emitter calls. It ends the
// stream itself (Finish or Fail) when the reply is complete or broken.
type decoder interface {
	// event handles one SSE event.
	event(ev sse.Event)
	// eof handles the end of the body; the stream must be ended after it.
	eof()
}

// call is everything one Stream call needs besides its decoder.
type call struct {
	cfg     *config
	path    string
	build   func(req *llm.Request, base string, cp Compat) ([]byte, error)
	decoder func(e *llm.Emitter, cp Compat, provider string, secrets []string) decoder
	// onError may improve a classified HTTP error, for hints.
	onError func(e *llm.Error, cp Compat)
	// wrapJSON frames a whole JSON reply as the event stream it stands
	// for.
	wrapJSON func(body []byte) []byte
}

// maxWholeBody caps a reply that arrives as one JSON document.
const maxWholeBody = 32 << 20

func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.TrimSpace(strings.ToLower(mt))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// sseFrame returns data as one SSE event of the given name (none when
// empty), compacting JSON so that it fits on one data line.
func sseFrame(name string, data []byte) []byte {
	var b bytes.Buffer
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	b.WriteString("data: ")
	if json.Compact(&b, data) != nil {
		b.Write(bytes.ReplaceAll(data, []byte("\n"), []byte(" ")))
	}
	b.WriteString("\n\n")
	return b.Bytes()
}

func providerName(req *llm.Request) string {
	if req.Model.Provider != "" {
		return req.Model.Provider
	}
	return "openai"
}

// stream performs one request and decodes its reply.
func (c *call) stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		stopped := false
		e := llm.NewEmitter(func(ev llm.Event, err error) bool {
			if !yield(ev, err) {
				stopped = true
				return false
			}
			return true
		}, req)
		provider := providerName(req)
		base := c.cfg.baseURL(req.Model.BaseURL)
		cp := c.cfg.compat(base)

		payload, err := c.build(req, base, cp)
		if err != nil {
			e.Fail(&llm.Error{Code: llm.CodeFormat, Provider: provider, Message: err.Error(), Err: err})
			return
		}
		if len(req.Options.Extra) > 0 {
			if payload, err = mergeExtra(payload, req.Options.Extra); err != nil {
				e.Fail(&llm.Error{Code: llm.CodeFormat, Provider: provider, Message: err.Error(), Err: err})
				return
			}
		}
		if req.Options.OnPayload != nil {
			if payload, err = req.Options.OnPayload(ctx, payload); err != nil {
				e.Fail(err)
				return
			}
		}
		key, err := c.cfg.key(ctx, req.Options.APIKey)
		if err != nil {
			if ctx.Err() != nil {
				e.Fail(wire.TransportError(ctx, err, provider))
				return
			}
			e.Fail(&llm.Error{Code: llm.CodeAuth, Provider: provider, Message: "resolving the API key: " + wire.Redact(err.Error(), key), Err: err})
			return
		}

		hreq, err := http.NewRequest(http.MethodPost, base+c.path, bytes.NewReader(payload))
		if err != nil {
			e.Fail(&llm.Error{Code: llm.CodeFormat, Provider: provider, Message: "invalid base URL " + base + ": " + err.Error(), Err: err})
			return
		}
		setHeaders(hreq.Header, key, c.cfg.opts.Headers, req.Model.Headers, req.Options.Headers)

		// The idle guard covers the wait for the response headers too.
		hctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		idle := c.cfg.idle()
		var headerTimer *time.Timer
		if idle > 0 {
			headerTimer = time.AfterFunc(idle, func() { cancel(wire.ErrIdle) })
		}
		resp, err := wire.Do(hctx, c.cfg.client(), hreq, provider, key)
		if headerTimer != nil && !headerTimer.Stop() && err == nil {
			// The guard fired as the headers arrived; hctx is cancelled
			// and the body unreadable.
			resp.Body.Close()
			resp, err = nil, errors.New("timer fired")
		}
		if err != nil {
			if ctx.Err() == nil && errors.Is(context.Cause(hctx), wire.ErrIdle) {
				err = wire.TransportError(ctx, fmt.Errorf("waiting for response headers: %w (%s)", wire.ErrIdle, idle), provider, key)
			}
			var le *llm.Error
			if c.onError != nil && errors.As(err, &le) {
				c.onError(le, cp)
			}
			e.Fail(err)
			return
		}
		body := wire.IdleTimeout(resp.Body, idle)
		defer body.Close()
		if err := wire.WebPage(resp, body, provider, key); err != nil {
			e.Fail(err)
			return
		}
		if isJSON(resp.Header.Get("Content-Type")) {
			// A server that ignored stream:true, or a proxy reporting an
			// error with status 200: decode the whole body as one event.
			whole, err := io.ReadAll(io.LimitReader(body, maxWholeBody))
			if err != nil {
				e.Fail(wire.TransportError(ctx, err, provider, key))
				return
			}
			body = io.NopCloser(bytes.NewReader(c.wrapJSON(whole)))
		}

		r := c.cfg.reader(body)
		defer c.cfg.readers.Put(r)
		run(ctx, r, e, c.decoder(e, cp, provider, []string{key}), provider, key)
		if !stopped {
			drain(body)
		}
	}
}

// run feeds the events r reads to d until the stream ends.
func run(ctx context.Context, r *sse.Reader, e *llm.Emitter, d decoder, provider string, secrets ...string) {
	for !e.Ended() {
		ev, err := r.Next()
		if err == io.EOF {
			d.eof()
			return
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("the stream was cut in the middle of an event: %w", err)
			}
			e.Fail(wire.TransportError(ctx, err, provider, secrets...))
			return
		}
		d.event(ev)
	}
}

// drainWait bounds how long a finished stream waits for the server to
// close the body, so that the connection can be reused.
const drainWait = 100 * time.Millisecond

func drain(body io.ReadCloser) {
	t := time.AfterFunc(drainWait, func() { body.Close() })
	_, _ = io.CopyN(io.Discard, body, 64<<10)
	t.Stop()
}

func setHeaders(h http.Header, key string, sets ...map[string]string) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	for _, m := range sets {
		for k, v := range m {
			h.Set(k, v)
		}
	}
}

// mergeExtra sets the top-level fields of extra over payload; a JSON null
// deletes the field.
func mergeExtra(payload []byte, extra map[string]json.RawMessage) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(payload, &m); err != nil {
		return nil, fmt.Errorf("request payload is not a JSON object: %w", err)
	}
	for k, v := range extra {
		t := bytes.TrimSpace(v)
		if !json.Valid(t) {
			return nil, fmt.Errorf("request Options.Extra[%q] is not valid JSON", k)
		}
		if string(t) == "null" {
			delete(m, k)
			continue
		}
		m[k] = t
	}
	return marshal(m)
}

// marshal encodes v without escaping <, > and &, as the APIs expect text
// verbatim.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// streamError builds the error of a failure reported inside a stream.
func streamError(provider string, status int, code, msg string, secrets ...string) *llm.Error {
	text := strings.TrimSpace(code + " " + msg)
	var c llm.ErrorCode
	if status >= 400 && status < 600 {
		c = llm.ClassifyHTTP(status, text)
	} else {
		c = llm.ClassifyText(text)
	}
	m := msg
	if code != "" && !strings.Contains(msg, code) {
		m = code + ": " + msg
	}
	if m == "" {
		m = "the server reported an error without a message"
	}
	return &llm.Error{Code: c, Provider: provider, Message: wire.Redact(m, secrets...)}
}
