package gemini

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/wire"
)

// DefaultBaseURL is the Gemini API endpoint used when neither the model
// nor the options name one.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// DefaultIdleTimeout is how long a stream may go without data before it
// fails with a timeout error.
const DefaultIdleTimeout = wire.DefaultIdle

// Options configure a Client. The zero value talks to DefaultBaseURL with
// http.DefaultClient and no credential.
type Options struct {
	// BaseURL replaces DefaultBaseURL; a request's Model.BaseURL, when
	// set, wins over it.
	BaseURL string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// APIKey returns the key for a request, resolved anew for each one.
	// A request's Options.APIKey, when non-empty, wins. The key is sent in
	// the x-goog-api-key header, never in the URL, and is removed from
	// every error message.
	APIKey func(ctx context.Context) (string, error)
	// Headers are sent with every request; the model's and the request's
	// headers are added over them.
	Headers map[string]string
	// IdleTimeout fails a stream that sends nothing for this long; zero
	// means DefaultIdleTimeout and a negative value disables the check.
	IdleTimeout time.Duration
}

// Client streams replies from the Gemini API. It is safe for concurrent
// use; between streams it keeps idle decoders (reader and parser
// buffers) for reuse, and nothing else.
type Client struct {
	opts     Options
	decoders sync.Pool // *decoder
}

// New returns a client with the given options.
func New(opts Options) *Client {
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	return &Client{opts: opts}
}

var _ llm.Provider = (*Client)(nil)

// Stream sends req to streamGenerateContent and yields the reply as it
// arrives. It keeps the llm.Provider contract: a start event first,
// exactly one final event last, and an early break releases the HTTP
// body. req is not modified.
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		provider := req.Model.Provider
		if provider == "" {
			provider = "gemini"
		}
		key, err := c.apiKey(ctx, req)
		if err != nil {
			llm.NewEmitter(yield, req).Fail(err)
			return
		}
		var secrets []string
		if key != "" {
			secrets = []string{key}
		}
		d, _ := c.decoders.Get().(*decoder)
		if d == nil {
			d = &decoder{}
		}
		d.reset(provider, secrets)
		defer func() {
			d.reset("", nil) // keep no request, emitter or key while idle
			c.decoders.Put(d)
		}()
		e := llm.NewEmitter(d.wrap(yield), req)
		d.e = e
		body, err := buildPayload(ctx, req)
		if err != nil {
			e.Fail(err)
			return
		}
		hreq, err := c.newRequest(ctx, req, key, body)
		if err != nil {
			e.Fail(&llm.Error{Code: llm.CodeFormat, Provider: provider, Message: wire.Redact(err.Error(), secrets...), Err: err})
			return
		}
		hc, capture := c.client()
		resp, err := wire.Do(ctx, hc, hreq, provider, secrets...)
		if err != nil {
			var le *llm.Error
			if errors.As(err, &le) && le.Status != 0 && capture.body != nil {
				if g, ok := parseGoogleError(capture.body); ok {
					refine(le, &g)
				}
			}
			e.Fail(err)
			return
		}
		rc := wire.IdleTimeout(resp.Body, c.opts.IdleTimeout)
		defer rc.Close()
		if err := wire.WebPage(resp, rc, provider, secrets...); err != nil {
			e.Fail(err)
			return
		}
		d.run(ctx, rc)
	}
}

// apiKey resolves the credential for req.
func (c *Client) apiKey(ctx context.Context, req *llm.Request) (string, error) {
	if req.Options.APIKey != "" {
		return req.Options.APIKey, nil
	}
	if c.opts.APIKey == nil {
		return "", nil
	}
	key, err := c.opts.APIKey(ctx)
	if err != nil {
		var le *llm.Error
		if errors.As(err, &le) {
			return "", err
		}
		code := llm.CodeAuth
		if ctx.Err() != nil {
			code = llm.CodeOf(ctx.Err())
		}
		return "", &llm.Error{Code: code, Provider: req.Model.Provider, Message: "resolving the API key: " + err.Error(), Err: err}
	}
	return key, nil
}

// endpoint returns the streamGenerateContent URL for req.
func (c *Client) endpoint(req *llm.Request) string {
	base := req.Model.BaseURL
	if base == "" {
		base = c.opts.BaseURL
	}
	if base == "" {
		base = DefaultBaseURL
	}
	base = strings.TrimRight(base, "/")
	id := strings.TrimPrefix(req.Model.ID, "/")
	var path string
	if strings.Contains(id, "/") {
		// Already a resource name, such as models/x or tunedModels/y.
		segs := strings.Split(id, "/")
		for i, s := range segs {
			segs[i] = url.PathEscape(s)
		}
		path = strings.Join(segs, "/")
	} else {
		path = "models/" + url.PathEscape(id)
	}
	return base + "/" + path + ":streamGenerateContent?alt=sse"
}

func (c *Client) newRequest(ctx context.Context, req *llm.Request, key string, body []byte) (*http.Request, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint(req), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	h := hreq.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	for _, hs := range []map[string]string{c.opts.Headers, req.Model.Headers, req.Options.Headers} {
		for k, v := range hs {
			h.Set(k, v)
		}
	}
	if key != "" {
		h.Set("x-goog-api-key", key)
	}
	return hreq, nil
}

// client returns the HTTP client for one request, with a transport that
// keeps a failed reply's body for refine.
func (c *Client) client() (*http.Client, *captureTransport) {
	base := c.opts.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	hc := *base
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	t := &captureTransport{base: rt}
	hc.Transport = t
	return &hc, t
}
