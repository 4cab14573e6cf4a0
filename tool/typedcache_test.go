package tool

import (
	"context"
	"errors"
	"strconv"
	"sync"
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

type raceArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// Tools of one argument type built and used from many goroutines at once
// (sessions opened in parallel) all end up with one compiled schema, and
// validation stays correct; run under -race this checks the cache is
// safe for concurrent use.
func TestTypedSchemaConcurrent(t *testing.T) {
	run := func(context.Context, *Call, raceArgs) (Result, error) { return Text("ok"), nil }
	const n = 16
	tools := make([]*Tool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tl, err := New("t"+strconv.Itoa(i), "search", run)
			if err == nil {
				err = tl.Validate([]byte(`{"query": "x"}`))
			}
			if err == nil && tl.Validate([]byte(`{"limit": 1}`)) == nil {
				err = errors.New("a call without query was accepted")
			}
			tools[i], errs[i] = tl, err
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("tool %d: %v", i, errs[i])
		}
		if tools[i].schema != tools[0].schema {
			t.Fatalf("tool %d has a schema of its own", i)
		}
	}
}
