package hook

import (
	"encoding/json"
	"maps"

	"github.com/reinhq/rein/llm"
)

// Opt is one field of a patch: left alone (the zero value), set to a value
// (Set) or explicitly unset (Unset), which deletes a map key or resets a
// field to its default.
type Opt[T any] struct {
	v     T
	state uint8
}

const (
	optKeep uint8 = iota
	optSet
	optUnset
)

// Set returns a patch field that sets v.
func Set[T any](v T) Opt[T] { return Opt[T]{v: v, state: optSet} }

// Unset returns a patch field that deletes the key or resets the field.
func Unset[T any]() Opt[T] { return Opt[T]{state: optUnset} }

// Get returns the value and whether the field sets one.
func (o Opt[T]) Get() (T, bool) { return o.v, o.state == optSet }

// IsUnset reports whether the field deletes its key or resets the field.
func (o Opt[T]) IsUnset() bool { return o.state == optUnset }

// IsZero reports whether the field leaves things as they are.
func (o Opt[T]) IsZero() bool { return o.state == optKeep }

// RequestPatch changes the stream options of one provider request. Fields
// left zero are kept. In the maps, a key set with Set is added or
// replaced, a key set with Unset is deleted.
type RequestPatch struct {
	Headers  map[string]Opt[string]
	Metadata map[string]Opt[string]
	// Extra patches llm.Options.Extra (provider-specific top-level fields).
	// Unset removes the key from Extra, so the provider's own value is
	// sent; to delete the field from the wire payload, Set it to JSON null.
	Extra map[string]Opt[json.RawMessage]
	// SessionID, APIKey: Unset clears them.
	SessionID Opt[string]
	APIKey    Opt[string]
	// MaxTokens: Unset means the model's maximum.
	MaxTokens Opt[int]
	// Temperature: Unset means the provider's default.
	Temperature Opt[float64]
}

// Apply applies the patch to req. Maps are copied before they are changed,
// so maps shared with other requests are never modified.
func (p *RequestPatch) Apply(req *llm.Request) {
	o := &req.Options
	o.Headers = patchMap(o.Headers, p.Headers)
	o.Metadata = patchMap(o.Metadata, p.Metadata)
	o.Extra = patchMap(o.Extra, p.Extra)
	patchField(&o.SessionID, p.SessionID)
	patchField(&o.APIKey, p.APIKey)
	patchField(&req.MaxTokens, p.MaxTokens)
	switch {
	case p.Temperature.IsUnset():
		req.Temperature = nil
	case !p.Temperature.IsZero():
		v, _ := p.Temperature.Get()
		req.Temperature = &v
	}
}

func patchField[T any](dst *T, o Opt[T]) {
	switch o.state {
	case optSet:
		*dst = o.v
	case optUnset:
		var zero T
		*dst = zero
	}
}

func patchMap[V any](m map[string]V, patch map[string]Opt[V]) map[string]V {
	if len(patch) == 0 {
		return m
	}
	out := maps.Clone(m)
	for k, o := range patch {
		switch o.state {
		case optSet:
			if out == nil {
				out = make(map[string]V, len(patch))
			}
			out[k] = o.v
		case optUnset:
			delete(out, k)
		}
	}
	return out
}
