package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrorCode classifies a model-call failure so that callers can decide
// what to do about it (retry, rotate a key, fall back, compact, give up).
type ErrorCode string

// Error codes.
const (
	CodeRateLimit       ErrorCode = "rate_limit"
	CodeOverloaded      ErrorCode = "overloaded"
	CodeAuth            ErrorCode = "auth"
	CodeBilling         ErrorCode = "billing"
	CodeTimeout         ErrorCode = "timeout"
	CodeContextOverflow ErrorCode = "context_overflow"
	CodeModelNotFound   ErrorCode = "model_not_found"
	CodeFormat          ErrorCode = "format"
	CodeServerError     ErrorCode = "server_error"
	CodeAborted         ErrorCode = "aborted"
	CodeUnknown         ErrorCode = "unknown"
	// CodeBudget: a spending limit of the caller stopped the request
	// before it was sent (see package telemetry). Not transient.
	CodeBudget ErrorCode = "budget_exhausted"
)

// Transient reports whether a failure with this code may succeed if the
// same request is sent again later.
func (c ErrorCode) Transient() bool {
	switch c {
	case CodeRateLimit, CodeOverloaded, CodeTimeout, CodeServerError:
		return true
	}
	return false
}

// Error is a classified model-call failure. Provider implementations
// return it (wrapped or not) as the error of a stream's final event.
type Error struct {
	Code ErrorCode
	// Status is the HTTP status code, or zero when the failure did not come
	// from an HTTP reply (a stream cut, an error event mid-stream, a stall).
	Status int
	// Message is the provider's explanation, safe to show to people. It
	// never contains credentials.
	Message  string
	Provider string
	// RetryAfter is the delay the server asked for, if any.
	RetryAfter time.Duration
	// Err is the underlying cause, if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider)
		b.WriteString(": ")
	}
	b.WriteString(string(e.Code))
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error with the same code, so that
// errors.Is(err, llm.ErrRateLimit) works for any rate-limit failure.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == 0 && t.Message == "" && t.Err == nil && t.Code == e.Code
}

// Sentinels for errors.Is; each matches any *Error with its code.
var (
	ErrRateLimit       = &Error{Code: CodeRateLimit}
	ErrOverloaded      = &Error{Code: CodeOverloaded}
	ErrAuth            = &Error{Code: CodeAuth}
	ErrBilling         = &Error{Code: CodeBilling}
	ErrTimeout         = &Error{Code: CodeTimeout}
	ErrContextOverflow = &Error{Code: CodeContextOverflow}
	ErrModelNotFound   = &Error{Code: CodeModelNotFound}
	ErrFormat          = &Error{Code: CodeFormat}
	ErrServerError     = &Error{Code: CodeServerError}
	ErrAborted         = &Error{Code: CodeAborted}
)

// CodeOf returns the code of err: the code of the *Error it wraps, aborted
// for context cancellation, timeout for a passed deadline, unknown
// otherwise, and "" for nil.
func CodeOf(err error) ErrorCode {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if errors.Is(err, context.Canceled) {
		return CodeAborted
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return CodeTimeout
	}
	return CodeUnknown
}

// AsError returns err as an *Error, classifying it with CodeOf when it is
// not one already.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeOf(err), Err: err}
}

// ClassifyHTTP derives an error code from an HTTP status and the text of
// the reply body. The body is consulted because providers report context
// overflow, billing and unknown models with generic statuses.
func ClassifyHTTP(status int, body string) ErrorCode {
	if IsContextOverflow(body) {
		return CodeContextOverflow
	}
	lower := strings.ToLower(body)
	switch {
	case status == 401 || status == 403:
		if containsAny(lower, "billing", "credit balance", "insufficient_quota", "quota") {
			return CodeBilling
		}
		return CodeAuth
	case status == 402:
		return CodeBilling
	case status == 404:
		return CodeModelNotFound
	case status == 408:
		return CodeTimeout
	case status == 413:
		return CodeContextOverflow
	case status == 429:
		if containsAny(lower, "insufficient_quota", "exceeded your current quota", "billing", "credit balance") {
			return CodeBilling
		}
		return CodeRateLimit
	case status == 529 || status == 503:
		return CodeOverloaded
	case status == 504:
		return CodeTimeout
	case status >= 500:
		if containsAny(lower, "overloaded") {
			return CodeOverloaded
		}
		return CodeServerError
	case status == 400 || status == 422:
		if containsAny(lower, "model_not_found", "model not found", "does not exist", "unknown model") {
			return CodeModelNotFound
		}
		if containsAny(lower, "credit balance", "insufficient_quota", "billing") {
			return CodeBilling
		}
		return CodeFormat
	}
	return ClassifyText(body)
}

// ClassifyText derives an error code from an error message alone, as sent
// in error events inside a stream.
func ClassifyText(msg string) ErrorCode {
	lower := strings.ToLower(msg)
	switch {
	case IsContextOverflow(msg):
		return CodeContextOverflow
	case containsAny(lower, "overloaded"):
		return CodeOverloaded
	case containsAny(lower, "rate limit", "rate_limit", "too many requests", "resource_exhausted", "resource exhausted"):
		return CodeRateLimit
	case containsAny(lower, "insufficient_quota", "quota", "billing", "credit balance"):
		return CodeBilling
	case containsAny(lower, "unauthorized", "invalid api key", "invalid x-api-key", "authentication", "permission denied", "unauthenticated"):
		return CodeAuth
	case containsAny(lower, "timeout", "timed out", "deadline exceeded"):
		return CodeTimeout
	case containsAny(lower, "model_not_found", "model not found"):
		return CodeModelNotFound
	case containsAny(lower, "internal server error", "server_error", "api_error", "internal error", "service unavailable"):
		return CodeServerError
	case containsAny(lower, "invalid_request", "invalid request", "invalid_argument"):
		return CodeFormat
	}
	return CodeUnknown
}

// overflowPhrases are the ways providers say that a prompt does not fit
// the model's context window.
var overflowPhrases = []string{
	"prompt is too long",
	"context_length_exceeded",
	"maximum context length",
	"context window",
	"context length",
	"exceeds the maximum number of tokens",
	"input is too long",
	"too many input tokens",
	"input token count",
	"request too large",
	"reduce the length of the messages",
	"token limit reached",
	"tokens exceeds",
	"exceed context limit",
	"num_ctx",
}

// IsContextOverflow reports whether an error text says the prompt did not
// fit the model's context window.
func IsContextOverflow(text string) bool {
	lower := strings.ToLower(text)
	return containsAny(lower, overflowPhrases...)
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
