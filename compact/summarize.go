package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/llm"
)

// Summarizer turns a summary request into text. Model is the one backed
// by a language model; tests and offline tools may use others.
type Summarizer interface {
	// Name identifies the summariser in reports ("anthropic/claude-…").
	Name() string
	// Window is the most input tokens it takes (0: unknown, no chunking).
	Window() int
	Summarize(ctx context.Context, r Request) (string, error)
}

// Model summarises with a language model.
type Model struct {
	Provider llm.Provider
	Model    llm.Model
	// MaxTokens caps the summary; zero means 8,192.
	MaxTokens int
}

// Name returns provider/model.
func (m Model) Name() string { return m.Model.Provider + "/" + m.Model.ID }

// Window returns the model's context window.
func (m Model) Window() int { return m.Model.ContextWindow }

// Summarize streams one reply and returns its text.
func (m Model) Summarize(ctx context.Context, r Request) (string, error) {
	if m.Provider == nil {
		return "", errors.New("no provider")
	}
	maxTok := m.MaxTokens
	if maxTok == 0 {
		maxTok = 8192
	}
	if m.Model.MaxOutput > 0 {
		maxTok = min(maxTok, m.Model.MaxOutput)
	}
	req := &llm.Request{
		Model: m.Model, System: []llm.SystemPart{{Text: r.System}},
		Messages: []llm.Message{llm.UserText(r.Prompt)}, MaxTokens: maxTok,
	}
	var acc llm.Accumulator
	for ev, err := range m.Provider.Stream(ctx, req) {
		if err != nil {
			return "", err
		}
		acc.Add(ev)
		if ev.Final() {
			msg := acc.Message()
			if ev.Message != nil {
				msg = *ev.Message
			}
			if msg.Failed() {
				return "", &llm.Error{Code: msg.ErrorCode, Message: msg.ErrorMessage}
			}
			return msg.Text(), nil
		}
	}
	msg := acc.Message()
	return msg.Text(), nil
}

// Input is what one compaction summarises.
type Input struct {
	// Messages are the part being compacted as the model saw it (masked
	// tool output stays a stub: the summariser is told what was elided,
	// not sent it); a leading compaction summary (see IsSummary) is taken
	// as the previous summary.
	Messages []llm.Message
	// Kept is the part kept verbatim (for the identifier check).
	Kept []llm.Message
	// Previous is the previous summary; set from Messages when empty.
	Previous string
	// Latest is the latest user request when it lies in the compacted
	// part: it is appended verbatim to the summary, never summarised.
	Latest string
	// Goal is the user's goal, carried verbatim into every summary; when
	// empty it is taken from the previous summary or the first user
	// message.
	Goal string
	// Focus is what the user asked the summary to focus on.
	Focus string
	// Handoff asks for a briefing for a new model (see the seed's
	// handoff mode).
	Handoff bool
	// CharsPerToken sizes the input; zero means DefaultCharsPerToken.
	CharsPerToken float64
	// Timeout bounds one summariser call; zero means Timeout(size) of
	// what that call is sent.
	Timeout time.Duration
	// Concurrency caps the chunk requests in flight at once; zero means
	// DefaultConcurrency.
	Concurrency int
	// Retries is how many times one request (a chunk, the merge, the
	// whole part) is sent again after a transient failure (rate limit,
	// overload, server error, timeout); zero means DefaultRetries, a
	// negative value none.
	Retries int
	// Wait waits d before a retry, or until ctx ends; nil waits on a
	// timer. A rate limit's RetryAfter is honoured.
	Wait func(ctx context.Context, d time.Duration) error
}

// Defaults of Input.
const (
	DefaultConcurrency = 2
	DefaultRetries     = 2
)

// Result is a summary and how it was made.
type Result struct {
	Summary string
	// Model names the summariser that wrote it ("digest" for the
	// fallback built without a model).
	Model string
	// Fallback: the first summariser failed and a later one (or the
	// digest) wrote the summary. Digest: no model succeeded.
	Fallback, Digest bool
	// Failures say why each summariser that was tried failed.
	Failures []string
	// Repaired lists the identifiers the summariser lost that were added
	// back, and Chunks how many parts were summarised separately.
	Repaired []string
	Chunks   int
	// Tokens is the size of the compacted part as given (the masked
	// view); SummaryTokens of the summary.
	Tokens, SummaryTokens int
	// InputTokens is what the summariser requests of the successful
	// summariser held, prompts included (chunks, merge, retries and the
	// identifier repair): the cost of the summary.
	InputTokens int
}

// Timeout is the time a summary of tokens input tokens may take: 120 s
// plus 1 s per 1,000 tokens, capped at 200,000 tokens.
func Timeout(tokens int) time.Duration {
	return 120*time.Second + time.Duration(min(tokens, 200_000)/1000)*time.Second
}

// Summarize writes the summary of in with the first summariser of chain
// that gives an acceptable one (see Validate), trying the next on
// failure, and falls back to Digest when every one fails, so that the
// middle of a conversation is never dropped. What a summary must keep is
// then made sure of: identifiers the kept part needs and the summary
// lost are asked for once, in a small request naming only them (see
// repairRequest), and whatever is still missing, the goal and the
// latest request are added verbatim. It returns an error only when ctx
// ends.
func Summarize(ctx context.Context, chain []Summarizer, in Input) (Result, error) {
	if in.Previous == "" && len(in.Messages) > 0 {
		in.Previous = SummaryText(&in.Messages[0])
	}
	if in.Goal == "" {
		in.Goal = goalOf(in.Messages)
	}
	cpt := in.CharsPerToken
	size := 0
	for i := range in.Messages {
		size += MessageTokens(&in.Messages[i], cpt)
	}
	res := Result{Tokens: size}
	ids := Needed(in.Messages, in.Kept, in.Latest, 200)
	for i, s := range chain {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		c := &caller{s: s, in: &in}
		text, chunks, err := c.summarize(ctx, size, ids)
		if err == nil {
			text = Clean(text)
			err = Validate(text, size, cpt)
		}
		if err == nil {
			if miss := Missing(text, ids); len(miss) > 0 {
				// One small request for what was lost, never the whole
				// part again.
				if add, rerr := c.send(ctx, repairRequest(&in, miss)); rerr == nil {
					add = Clean(add)
					if strings.TrimSpace(add) != "" && len(Missing(text+"\n"+add, ids)) < len(miss) && Validate(text+"\n"+add, size, cpt) == nil {
						text = strings.TrimSpace(text) + "\n\n## Identifiers\n" + strings.TrimSpace(add)
					}
				}
			}
			res.Summary, res.Model, res.Fallback, res.Chunks = text, s.Name(), i > 0, chunks
			res.Repaired = Missing(text, ids)
			res.Summary = finish(res.Summary, &in, res.Repaired)
			res.SummaryTokens = Tokens(len(res.Summary), 0, cpt)
			res.InputTokens = c.input()
			return res, nil
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Failures = append(res.Failures, fmt.Sprintf("%s: %v", s.Name(), err))
	}
	reason := "no summariser is configured"
	if len(res.Failures) > 0 {
		reason = strings.Join(res.Failures, "; ")
	}
	res.Summary = finish(Digest(in, reason), &in, nil)
	res.Model, res.Digest, res.Fallback = "digest", true, true
	res.SummaryTokens = Tokens(len(res.Summary), 0, cpt)
	return res, nil
}

// finish adds what a summary must carry verbatim and lost: the goal, the
// identifiers in missing, the latest request.
func finish(s string, in *Input, missing []string) string {
	var b strings.Builder
	if in.Goal != "" && !strings.Contains(s, in.Goal) {
		b.WriteString("## Goal (the user's words)\n")
		b.WriteString(in.Goal)
		b.WriteString("\n\n")
	}
	b.WriteString(strings.TrimSpace(s))
	if len(missing) > 0 {
		b.WriteString("\n\n## Identifiers (verbatim)\n")
		for _, id := range missing {
			b.WriteString("- ")
			b.WriteString(id)
			b.WriteByte('\n')
		}
	}
	if in.Latest != "" && !strings.Contains(s, in.Latest) {
		b.WriteString("\n\n## Latest request (verbatim, still being worked on)\n")
		b.WriteString(in.Latest)
	}
	return b.String()
}

// goalOf returns the goal: the one recorded in a leading summary, else
// the first user message.
func goalOf(msgs []llm.Message) string {
	if len(msgs) > 0 && IsSummary(&msgs[0]) {
		if g := GoalOf(SummaryText(&msgs[0])); g != "" {
			return g
		}
	}
	for i := range msgs {
		if msgs[i].Role == llm.RoleUser && !IsSummary(&msgs[i]) {
			return strings.TrimSpace(msgs[i].Text())
		}
	}
	return ""
}

// caller sends the requests of one summariser for one compaction,
// counting what they hold.
type caller struct {
	s  Summarizer
	in *Input

	mu    sync.Mutex
	chars int
}

func (c *caller) input() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Tokens(c.chars, 0, c.in.CharsPerToken)
}

// summarize runs the summariser over the whole part: in one request
// when it fits 60 % of the summariser's window, else in chunks of about
// half the window each, sent at most Concurrency at a time, then merged.
func (c *caller) summarize(ctx context.Context, size int, ids []string) (string, int, error) {
	in := c.in
	msgs := in.Messages
	if len(msgs) > 0 && IsSummary(&msgs[0]) {
		msgs = msgs[1:]
	}
	parts := 1
	if w := c.s.Window(); w > 0 && size > w*6/10 {
		parts = (size + w/2 - 1) / (w / 2)
	}
	chunks := Split(msgs, parts, in.CharsPerToken)
	if len(chunks) <= 1 {
		text, err := c.send(ctx, summaryRequest(in, msgs, ids))
		return text, 1, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]string, len(chunks))
	errs := make([]error, len(chunks))
	limit := in.Concurrency
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			sub := *in
			if i > 0 {
				sub.Previous = "" // the merge carries it
			}
			out[i], errs[i] = c.send(ctx, summaryRequest(&sub, chunks[i], present(ids, messagesText(chunks[i]))))
			if errs[i] == nil && strings.TrimSpace(out[i]) == "" {
				errs[i] = fmt.Errorf("chunk %d: %w", i+1, ErrEmptySummary)
			}
			if errs[i] != nil {
				cancel() // the summary fails as a whole: stop the others
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return "", len(chunks), err
		}
	}
	if err := errors.Join(errs...); err != nil {
		return "", len(chunks), err
	}
	text, err := c.send(ctx, mergeRequest(out))
	return text, len(chunks), err
}

// send makes one request under its own timeout, sending it again after
// a transient failure (see Input.Retries).
func (c *caller) send(ctx context.Context, r Request) (string, error) {
	retries := c.in.Retries
	if retries == 0 {
		retries = DefaultRetries
	}
	size := Tokens(len(r.System)+len(r.Prompt), 0, c.in.CharsPerToken)
	for attempt := 0; ; attempt++ {
		c.mu.Lock()
		c.chars += len(r.System) + len(r.Prompt)
		c.mu.Unlock()
		timeout := c.in.Timeout
		if timeout == 0 {
			timeout = Timeout(size)
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		text, err := call(cctx, c.s, r)
		cancel()
		if err == nil || ctx.Err() != nil || attempt >= retries || !llm.CodeOf(err).Transient() {
			return text, err
		}
		d := time.Duration(1<<attempt) * time.Second
		if le := llm.AsError(err); le.RetryAfter > 0 {
			d = le.RetryAfter
		}
		if werr := c.wait(ctx, d); werr != nil {
			return "", err
		}
	}
}

func (c *caller) wait(ctx context.Context, d time.Duration) error {
	if c.in.Wait != nil {
		return c.in.Wait(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func call(ctx context.Context, s Summarizer, r Request) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the summariser panicked: %v", p)
		}
	}()
	text, err = s.Summarize(ctx, r)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = &llm.Error{Code: llm.CodeTimeout, Message: "timed out", Err: err}
	}
	return text, err
}

// Split cuts msgs into at most parts chunks of about equal token share,
// only at safe boundaries (see Safe): no chunk separates a tool call
// from its result.
func Split(msgs []llm.Message, parts int, cpt float64) [][]llm.Message {
	if parts <= 1 || len(msgs) < 2 {
		return [][]llm.Message{msgs}
	}
	tok := make([]int, len(msgs))
	total := 0
	for i := range msgs {
		tok[i] = MessageTokens(&msgs[i], cpt)
		total += tok[i]
	}
	safe := Safe(msgs)
	target := total / parts
	var out [][]llm.Message
	from, cur := 0, 0
	for i := range msgs {
		if cur >= target && safe[i] && i > from && len(out) < parts-1 {
			out = append(out, msgs[from:i])
			from, cur = i, 0
		}
		cur += tok[i]
	}
	return append(out, msgs[from:])
}

// present returns the identifiers of ids that occur in text.
func present(ids []string, text string) []string {
	var out []string
	for _, id := range ids {
		if strings.Contains(text, id) {
			out = append(out, id)
		}
	}
	return out
}
