package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// typedSchema is the schema New derives from an argument type, and its
// compiled form. It depends on the type alone and is never changed once
// made, so each type's is made once per process and shared by every tool
// built from it (a session opened per sub-agent builds the same tools
// again). The compiled form is made on the first call to validate: a run
// offers every tool to the model but calls only a few.
type typedSchema struct {
	raw     json.RawMessage
	compile *compiledSchema
}

// typedSchemas caches typedSchema by argument type (reflect.Type).
var typedSchemas sync.Map

func schemaFor[In any]() (*typedSchema, error) {
	key := reflect.TypeFor[In]()
	if v, ok := typedSchemas.Load(key); ok {
		return v.(*typedSchema), nil
	}
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, err
	}
	raw, ok := appendSchema(nil, s)
	if !ok {
		if raw, err = json.Marshal(s); err != nil {
			return nil, err
		}
	}
	ts := &typedSchema{raw: raw, compile: &compiledSchema{raw: raw}}
	v, _ := typedSchemas.LoadOrStore(key, ts)
	return v.(*typedSchema), nil
}

// New builds a tool from a Go function taking a struct of arguments. The
// JSON Schema is generated from In (field names from json tags, optional
// fields marked omitempty, descriptions from jsonschema tags) and every
// call's arguments are validated against it before fn runs, so fn always
// receives well-typed input. An error returned by fn becomes an error
// result whose text is the error's message.
func New[In any](name, description string, fn func(ctx context.Context, call *Call, in In) (Result, error)) (*Tool, error) {
	ts, err := schemaFor[In]()
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	t := &Tool{
		Name:        name,
		Description: description,
		Schema:      ts.raw,
		schema:      ts.compile,
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
	if name == "" {
		return nil, fmt.Errorf("tool: a tool needs a name")
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
