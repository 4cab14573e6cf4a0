package anthropic

import (
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/internal/wire"
)

// DefaultBaseURL is the Messages API's address.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultIdleTimeout is how long a stream may stay silent before it fails.
const DefaultIdleTimeout = wire.DefaultIdle

// Version is the anthropic-version header rein sends.
const Version = "2023-06-01"

// Options configure a Client. The zero value talks to DefaultBaseURL
// with http.DefaultClient and no credentials.
type Options struct {
	// BaseURL is the server's address, with or without a trailing /v1;
	// "" means DefaultBaseURL. A request's Model.BaseURL, when set, wins.
	BaseURL string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// APIKey returns the key sent as x-api-key. It is called for every
	// request so that expiring credentials can be refreshed. A request's
	// Options.APIKey, when set, wins. Nil, or an empty key, sends none.
	APIKey func(ctx context.Context) (string, error)
	// Headers are added to every request, followed by the model's and the
	// request's own headers; later ones win, and all of them may override
	// the defaults.
	Headers map[string]string
	// IdleTimeout fails a stream that receives no bytes for this long,
	// waiting for the reply's headers included, with code timeout. Zero
	// means DefaultIdleTimeout; a negative value disables the guard.
	IdleTimeout time.Duration
}

// Client streams replies from the Messages API. It is safe for
// concurrent use.
type Client struct {
	opts Options
	idle time.Duration
	// readers keeps SSE readers, and their buffers, between streams.
	readers sync.Pool
	// now stamps messages; nil means time.Now. Tests set it.
	now func() time.Time
}

var _ llm.Provider = (*Client)(nil)

// New returns a client with opts.
func New(opts Options) *Client {
	c := &Client{opts: opts, idle: opts.IdleTimeout}
	if c.idle == 0 {
		c.idle = DefaultIdleTimeout
	}
	return c
}

// Endpoint returns the messages URL for a base URL given with or without
// a trailing /v1 (or /v1/messages).
func Endpoint(base string) string {
	if base == "" {
		base = DefaultBaseURL
	}
	base = strings.TrimRight(base, "/")
	base = strings.TrimSuffix(base, "/messages")
	base = strings.TrimSuffix(base, "/v1")
	return base + "/v1/messages"
}

// drainWait bounds how long a finished stream waits for the server to end
// the body, so that the connection can be reused.
const drainWait = 100 * time.Millisecond

// Stream sends req and streams the reply. See llm.Provider for the
// contract; failures end the stream with an *llm.Error.
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		e := llm.NewEmitter(yield, req)
		e.Now = c.now
		c.stream(ctx, req, e)
	}
}

func (c *Client) stream(ctx context.Context, req *llm.Request, e *llm.Emitter) {
	provider := req.Model.Provider
	if provider == "" {
		provider = "anthropic"
	}
	fail := func(err error) {
		if le := llm.AsError(err); le.Provider == "" {
			le.Provider = provider
			err = le
		}
		e.Fail(err)
	}
	key, err := c.key(ctx, req)
	if err != nil {
		fail(err)
		return
	}
	secrets := []string{key}
	body, err := encode(ctx, req)
	if err != nil {
		fail(err)
		return
	}
	base := c.opts.BaseURL
	if req.Model.BaseURL != "" {
		base = req.Model.BaseURL
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, Endpoint(base), bytes.NewReader(body))
	if err != nil {
		fail(&llm.Error{Code: llm.CodeFormat, Message: wire.Redact(err.Error(), key), Err: err})
		return
	}
	c.setHeaders(hreq.Header, req, key)

	hctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var headerTimer *time.Timer
	if c.idle > 0 {
		headerTimer = time.AfterFunc(c.idle, func() { cancel(wire.ErrIdle) })
	}
	resp, err := wire.Do(hctx, c.opts.HTTPClient, hreq, provider, key)
	if headerTimer != nil {
		headerTimer.Stop()
	}
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(hctx), wire.ErrIdle) {
			err = wire.TransportError(ctx, wire.ErrIdle, provider, key)
		}
		fail(err)
		return
	}
	rc := wire.IdleTimeout(resp.Body, c.idle)
	defer rc.Close()
	if err := wire.WebPage(resp, rc, provider, key); err != nil {
		fail(err)
		return
	}
	if ct := resp.Header.Get("content-type"); strings.HasPrefix(ct, "application/json") {
		// Not a stream: a proxy's error envelope or a server that ignored
		// "stream": true. Say so rather than report an empty stream.
		body, _ := io.ReadAll(io.LimitReader(rc, 64<<10))
		fail(&llm.Error{Code: llm.CodeFormat, Status: resp.StatusCode, Provider: provider,
			Message: wire.Redact("the server answered with JSON instead of an event stream: "+wire.ErrorMessage(body), key)})
		return
	}

	r, _ := c.readers.Get().(*sse.Reader)
	if r == nil {
		r = sse.NewReader(rc)
	} else {
		r.Reset(rc)
	}
	defer func() {
		r.Reset(nil)
		c.readers.Put(r)
	}()
	d := newDecoder(e, provider, secrets...)
	d.run(r, func(err error) error {
		return readError(ctx, hctx, err, provider, secrets)
	})
	if d.finished {
		drain(rc)
	}
}

// key resolves the credential for one request.
func (c *Client) key(ctx context.Context, req *llm.Request) (string, error) {
	if req.Options.APIKey != "" {
		return req.Options.APIKey, nil
	}
	if c.opts.APIKey == nil {
		return "", nil
	}
	k, err := c.opts.APIKey(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", wire.TransportError(ctx, err, "")
		}
		return "", &llm.Error{Code: llm.CodeAuth, Message: "resolving the API key: " + err.Error(), Err: err}
	}
	return k, nil
}

func (c *Client) setHeaders(h http.Header, req *llm.Request, key string) {
	h.Set("content-type", "application/json")
	h.Set("accept", "text/event-stream")
	h.Set("anthropic-version", Version)
	if key != "" {
		h.Set("x-api-key", key)
	}
	for _, m := range []map[string]string{c.opts.Headers, req.Model.Headers, req.Options.Headers} {
		for k, v := range m {
			h.Set(k, v)
		}
	}
}

// drain reads what is left of a finished stream for a short while so
// that the HTTP connection can be reused, then gives up.
func drain(body io.ReadCloser) {
	t := time.AfterFunc(drainWait, func() { body.Close() })
	defer t.Stop()
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
}
