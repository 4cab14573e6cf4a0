package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type schemaInner struct {
	Name  string            `json:"name" jsonschema:"a <name> & \"quoted\" — with \u2028 in it"`
	Tags  []string          `json:"tags,omitempty"`
	Pairs [2]int            `json:"pairs"`
	Attrs map[string]uint16 `json:"attrs,omitempty"`
}

type schemaEmbedded struct {
	Shared bool `json:"shared"`
}

type schemaOuter struct {
	schemaEmbedded
	Path    string         `json:"path" jsonschema:"File in the workspace."`
	Count   int            `json:"count,omitempty"`
	Small   int8           `json:"small"`
	Big     uint64         `json:"big"`
	Ratio   float64        `json:"ratio,omitzero"`
	Byte    uint8          `json:"byte"`
	Mid     int32          `json:"mid"`
	Ptr     *string        `json:"ptr,omitempty"`
	Any     any            `json:"any,omitempty"`
	Inner   schemaInner    `json:"inner"`
	Inners  []schemaInner  `json:"inners,omitempty"`
	ByName  map[string]any `json:"by_name,omitempty"`
	Hidden  string         `json:"-"`
	NoTag   string
	Nothing struct{} `json:"nothing"`
}

// appendSchema writes the schemas jsonschema.For makes byte for byte as
// json.Marshal does, for argument types using every kind For handles.
func TestAppendSchemaMatchesMarshal(t *testing.T) {
	for name, s := range map[string]*jsonschema.Schema{
		"outer":  must(jsonschema.For[schemaOuter](nil)),
		"inner":  must(jsonschema.For[schemaInner](nil)),
		"empty":  must(jsonschema.For[struct{}](nil)),
		"slice":  must(jsonschema.For[[]schemaInner](nil)),
		"string": must(jsonschema.For[string](nil)),
	} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendSchema(nil, s)
		if !ok {
			t.Fatalf("%s: the schema of For was not written", name)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// A schema with any keyword For does not fill in, or an order that does
// not name each property once, is left to json.Marshal.
func TestAppendSchemaDeclinesOthers(t *testing.T) {
	str := &jsonschema.Schema{Type: "string"}
	for name, s := range map[string]*jsonschema.Schema{
		"enum":           {Type: "string", Enum: []any{"a", "b"}},
		"nested format":  {Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Type: "string", Format: "uri"}}, PropertyOrder: []string{"a"}},
		"type and types": {Type: "string", Types: []string{"null", "string"}},
		"order repeats":  {Type: "object", Properties: map[string]*jsonschema.Schema{"a": str, "b": str}, PropertyOrder: []string{"a", "a"}},
		"order short":    {Type: "object", Properties: map[string]*jsonschema.Schema{"a": str, "b": str}, PropertyOrder: []string{"a"}},
		"order unknown":  {Type: "object", Properties: map[string]*jsonschema.Schema{"a": str}, PropertyOrder: []string{"b"}},
	} {
		if b, ok := appendSchema(nil, s); ok {
			t.Errorf("%s: written as %s", name, b)
		}
	}
}

// Tools built from a type get the schema json.Marshal writes.
func TestTypedToolSchemaAsMarshalled(t *testing.T) {
	tl := MustNew("outer", "d", func(_ context.Context, _ *Call, in schemaOuter) (Result, error) { return Text("ok"), nil })
	want, err := json.Marshal(must(jsonschema.For[schemaOuter](nil)))
	if err != nil {
		t.Fatal(err)
	}
	if string(tl.Schema) != string(want) {
		t.Fatalf("got %s\nwant %s", tl.Schema, want)
	}
	if err := tl.Validate([]byte(`{"path": "a", "small": 1, "big": 2, "byte": 3, "mid": 4, "shared": true, "NoTag": "x", "nothing": {},
		"inner": {"name": "n", "pairs": [1, 2]}, "pairs": 1}`)); err == nil {
		t.Fatal("an unknown property was accepted")
	}
}

func must(s *jsonschema.Schema, err error) *jsonschema.Schema {
	if err != nil {
		panic(err)
	}
	return s
}

// A deferred tool's schema is compiled on its first call: NewRegistry
// takes even an invalid one, and every call then fails saying so; a
// valid one validates as usual.
func TestDeferredSchema(t *testing.T) {
	run := func(context.Context, *Call) Result { return Text("ran") }
	bad := Deferred(&Tool{Name: "bad", Schema: json.RawMessage(`{"type":5}`), Run: run})
	good := Deferred(&Tool{Name: "good", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`), Run: run})
	reg, err := NewRegistry(bad, good)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res := reg.Execute(context.Background(), &Call{Name: "bad", Args: json.RawMessage(`{}`)})
		if !res.IsError || !strings.Contains(res.Text(), `tool "bad": schema`) {
			t.Fatalf("a call of a tool with an invalid schema: %+v", res)
		}
	}
	if res := reg.Execute(context.Background(), &Call{Name: "good", Args: json.RawMessage(`{"n": "x"}`)}); !res.IsError {
		t.Fatalf("a string n was accepted: %+v", res)
	}
	if res := reg.Execute(context.Background(), &Call{Name: "good", Args: json.RawMessage(`{"n": 1}`)}); res.IsError || res.Text() != "ran" {
		t.Fatalf("valid arguments: %+v", res)
	}
}
