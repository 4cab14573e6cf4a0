package failover

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
)

func TestObserverSeesAttemptsAndDecisionsOfItsRequest(t *testing.T) {
	c, rec := newClock(), &recorder{}
	a := newFake("prov", map[string][]reply{"k1": {fail(llm.CodeOverloaded, 529), fail(llm.CodeBilling, 402)}})
	b := newFake("prov2", nil)
	p := mustNew(t, []Target{
		{Provider: a, Model: modelA, Profiles: []Profile{keyProfile("prov:one", "k1")}},
		{Provider: b, Model: modelB, Profiles: []Profile{keyProfile("prov2:main", "kb")}},
	}, testOptions(c, rec))
	var seen []Event
	ctx := WithObserver(context.Background(), func(e Event) { seen = append(seen, e) })
	if o := drain(t, p, ctx, request("")); o.err != nil {
		t.Fatal(o.err)
	}
	var kinds []string
	for _, e := range seen {
		kinds = append(kinds, string(e.Kind)+" "+e.Model+" "+e.Profile)
	}
	want := []string{
		"attempt model-a prov:one", "retry model-a prov:one", "attempt model-a prov:one",
		"cooldown  prov:one", "fallback model-b prov2:main", "attempt model-b prov2:main",
	}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
	for _, e := range rec.All() {
		if e.Kind == EventAttempt {
			t.Errorf("Options.OnEvent got an attempt event: %+v", e)
		}
	}
	// A request without an observer reports to OnEvent alone.
	n := len(seen)
	drain(t, p, context.Background(), request(""))
	if len(seen) != n {
		t.Errorf("an observer of another request saw %d more events", len(seen)-n)
	}
}
