package tool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// New builds a tool from a Go function taking a struct of arguments. The
// JSON Schema is generated from In (field names from json tags, optional
// fields marked omitempty, descriptions from jsonschema tags) and every
// call's arguments are validated against it before fn runs, so fn always
// receives well-typed input. An error returned by fn becomes an error
// result whose text is the error's message.
func New[In any](name, description string, fn func(ctx context.Context, call *Call, in In) (Result, error)) (*Tool, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	t := &Tool{
		Name:        name,
		Description: description,
		Schema:      raw,
		Run: func(ctx context.Context, call *Call) Result {
			var in In
			if len(call.Args) > 0 {
				if err := json.Unmarshal(call.Args, &in); err != nil {
					return Errorf("%s: invalid arguments: %v", name, err)
				}
			}
			res, err := fn(ctx, call, in)
			if err != nil {
				if len(res.Content) == 0 {
					return Errorf("%v", err)
				}
				res.IsError = true
			}
			return res
		},
	}
	if err := t.resolve(); err != nil {
		return nil, err
	}
	return t, nil
}

// MustNew is New for tools defined at program start; it panics on a type
// that cannot be described by a JSON Schema.
func MustNew[In any](name, description string, fn func(ctx context.Context, call *Call, in In) (Result, error)) *Tool {
	t, err := New(name, description, fn)
	if err != nil {
		panic(err)
	}
	return t
}
