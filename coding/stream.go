package coding

import (
	"encoding/json"
	"sync"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/redact"
)

// EventEncoder writes rein's event stream schema: one JSON object per
// event, as harness.Event's MarshalJSON gives it, with secrets that a
// reply streams across several deltas masked (see DeltaMasker). It is the
// one encoder of `rein run --output-format rein-stream-json`, the HTTP
// server's event stream and the RPC mode, so the three carry the same
// objects. It is safe for concurrent use; events of one agent must be
// passed in the order they happened.
type EventEncoder struct {
	mu sync.Mutex
	m  *DeltaMasker
}

// NewEventEncoder masks with r (nil masks nothing but the deltas'
// hold-back logic still applies with an empty redactor).
func NewEventEncoder(r *redact.Redactor) *EventEncoder {
	return &EventEncoder{m: NewDeltaMasker(r)}
}

// Encoded is one object of the stream: its event type and its JSON (no
// trailing newline).
type Encoded struct {
	Type string
	JSON []byte
}

// Encode returns the objects to write for ev, in order: none, one, or
// (when a masked delta was held back) more than one.
func (e *EventEncoder) Encode(ev harness.Event) ([]Encoded, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	evs := e.m.Apply(ev)
	out := make([]Encoded, 0, len(evs))
	for _, x := range evs {
		b, err := json.Marshal(x)
		if err != nil {
			return out, err
		}
		out = append(out, Encoded{Type: string(x.Type), JSON: b})
	}
	return out, nil
}
