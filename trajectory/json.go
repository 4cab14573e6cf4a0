package trajectory

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/reinhq/rein/internal/jsonread"
)

// readOpts accept what recordings contain: invalid UTF-8 is kept rather
// than refused and a repeated key is not an error.
var readOpts = jsonread.Options

// unmarshal decodes b into v, with an error that says what was wrong in
// a reader's words.
func unmarshal(b []byte, v any) error {
	err := json.Unmarshal(b, v, readOpts)
	if err == nil {
		return nil
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		return fmt.Errorf("not valid JSON: %v", strings.TrimPrefix(syn.Error(), "jsontext: "))
	}
	var sem *json.SemanticError
	if errors.As(err, &sem) && sem.JSONPointer != "" {
		return fmt.Errorf("%s: unexpected %s", strings.TrimPrefix(string(sem.JSONPointer), "/"), kindName(sem.JSONKind))
	}
	return fmt.Errorf("unexpected JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

// stringValue decodes a JSON string; ok is false when raw is not one.
func stringValue(raw []byte) (string, bool) { return jsonread.String(raw) }

// unknownKeys returns the top-level member names of the object obj that
// are not in known, in order.
func unknownKeys(obj []byte, known []string) []string {
	pd := jsonread.Get(obj)
	defer pd.Free()
	d := &pd.Dec
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	var out []string
	for d.PeekKind() == '"' {
		tok, err := d.ReadToken()
		if err != nil {
			return out
		}
		if k := tok.String(); !slices.Contains(known, k) {
			out = append(out, k)
		}
		if d.SkipValue() != nil {
			return out
		}
	}
	return out
}
