package tool

import (
	"context"
	"testing"
)

type cachedArgs struct {
	Path string `json:"path" jsonschema:"a path"`
	N    int    `json:"n,omitempty"`
}

// Tools built from one argument type share its compiled schema, and each
// still validates and runs on its own.
func TestTypedSchemaSharedPerType(t *testing.T) {
	run := func(context.Context, *Call, cachedArgs) (Result, error) { return Text("ok"), nil }
	a := MustNew("a", "first", run)
	b := MustNew("b", "second", run)
	if a.schema == nil || a.schema != b.schema || string(a.Schema) != string(b.Schema) {
		t.Fatalf("schemas not shared: %p %p", a.schema, b.schema)
	}
	if err := b.Validate([]byte(`{"path": "x", "n": 2}`)); err != nil {
		t.Errorf("valid arguments: %v", err)
	}
	if err := a.Validate([]byte(`{"n": "two"}`)); err == nil {
		t.Errorf("a missing path and a string n were accepted")
	}
	if _, err := New[cachedArgs]("", "no name", run); err == nil {
		t.Errorf("a tool without a name was accepted")
	}
}
