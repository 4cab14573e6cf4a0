package failover

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
)

func TestStatePersistsAcrossInstances(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "cooldowns.json")
	c := newClock()
	f := newFake("prov", map[string][]reply{"k1": {fail(llm.CodeAuth, 401)}})
	targets := []Target{{Provider: f, Profiles: []Profile{keyProfile("prov:one", "k1"), keyProfile("prov:two", "k2")}}}

	o := testOptions(c, &recorder{})
	o.StatePath = path
	p1 := mustNew(t, targets, o)
	drain(t, p1, context.Background(), request(""))

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "k1") || strings.Contains(string(data), "k2") {
		t.Errorf("state file holds a key:\n%s", data)
	}
	var sf stateFile
	if err := json.Unmarshal(data, &sf); err != nil {
		t.Fatal(err)
	}
	want := stateFile{Version: 1, Profiles: map[string]*profileRecord{
		"prov:one": {record: record{Failures: 1, Until: c.Now().Add(5 * time.Minute), Reason: llm.CodeAuth}},
	}}
	if diff := cmp.Diff(want, sf, cmp.AllowUnexported(profileRecord{})); diff != "" {
		t.Errorf("state file (-want +got):\n%s", diff)
	}

	// A new instance (a restart) avoids the key in cooldown.
	p2 := mustNew(t, targets, o)
	drain(t, p2, context.Background(), request(""))
	if diff := cmp.Diff([]string{"k1", "k2", "k2"}, keys(f.Calls())); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}

	// An instance created earlier notices the other's writes.
	p3 := mustNew(t, targets, o)
	f.byKey["k2"] = []reply{fail(llm.CodeBilling, 402)}
	c.Advance(time.Second)
	drain(t, p2, context.Background(), request("")) // k2 billing, k1 still cooling: tried as last resort
	cands, healthy := p3.state.candidates([]string{"prov:one", "prov:two"}, "prov/model-a", "", c.Now())
	if healthy != 0 || cands[0].id != "prov:one" {
		t.Errorf("p3 order = %+v healthy %d; want both cooling, one first", cands, healthy)
	}
}

func TestCorruptStateFileStartsEmpty(t *testing.T) {
	for name, content := range map[string]string{
		"garbage":       "{not json",
		"wrong version": `{"version": 99, "profiles": {"prov:one": {"failures": 3}}}`,
		"wrong types":   `{"version": 1, "profiles": {"prov:one": {"failures": "many"}}}`,
		"null records":  `{"version": 1, "profiles": {"prov:one": null, "prov:two": {"models": {"x": null}}}}`,
		"empty":         ``,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			c, rec := newClock(), &recorder{}
			o := testOptions(c, rec)
			o.StatePath = path
			f := newFake("prov", map[string][]reply{"k1": {fail(llm.CodeAuth, 401)}})
			p := mustNew(t, []Target{{Provider: f, Profiles: []Profile{keyProfile("prov:one", "k1"), keyProfile("prov:two", "k2")}}}, o)
			if out := drain(t, p, context.Background(), request("")); out.err != nil {
				t.Fatal(out.err)
			}
			if diff := cmp.Diff([]string{"k1", "k2"}, keys(f.Calls())); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			data, _ := os.ReadFile(path)
			var sf stateFile
			if err := json.Unmarshal(data, &sf); err != nil || sf.Profiles["prov:one"] == nil {
				t.Errorf("state not rewritten: %v\n%s", err, data)
			}
			if name != "null records" && len(rec.Of(EventState)) == 0 {
				t.Errorf("no state event for a corrupt file")
			}
		})
	}
}

func TestUnwritableStateIsReported(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c, rec := newClock(), &recorder{}
	o := testOptions(c, rec)
	o.StatePath = filepath.Join(blocker, "state.json") // a path under a regular file
	f := newFake("prov", map[string][]reply{"k1": {fail(llm.CodeAuth, 401)}})
	p := mustNew(t, []Target{{Provider: f, Profiles: []Profile{keyProfile("prov:one", "k1"), keyProfile("prov:two", "k2")}}}, o)
	if out := drain(t, p, context.Background(), request("")); out.err != nil {
		t.Fatal(out.err)
	}
	drain(t, p, context.Background(), request(""))
	var saves, reads int
	for _, e := range rec.Of(EventState) {
		switch {
		case strings.HasPrefix(e.Message, "cannot save"):
			saves++
		case strings.HasPrefix(e.Message, "cannot read"):
			reads++
		}
	}
	if saves != 1 || reads != 1 {
		t.Errorf("state events = %+v; want each lasting problem reported once", rec.Of(EventState))
	}
	// Memory still holds the cooldown.
	if got := keys(f.Calls()); got[len(got)-1] != "k2" {
		t.Errorf("keys = %v", got)
	}
}

func TestConcurrentRequests(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	c, rec := newClock(), &recorder{}
	o := testOptions(c, rec)
	o.StatePath = path
	script := map[string][]reply{}
	for i := range 4 {
		script[fmt.Sprint("k", i)] = []reply{fail(llm.CodeRateLimit, 429), fail(llm.CodeAuth, 401)}
	}
	f := newFake("prov", script)
	var profiles []Profile
	for i := range 4 {
		profiles = append(profiles, keyProfile(fmt.Sprint("prov:", i), fmt.Sprint("k", i)))
	}
	p := mustNew(t, []Target{{Provider: f, Profiles: profiles}, {Provider: newFake("prov2", nil), Model: modelB}}, o)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			o := drain(t, p, context.Background(), request(fmt.Sprint("s", i%3)))
			if o.err != nil {
				t.Errorf("request %d: %v", i, o.err)
			}
		})
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sf stateFile
	if err := json.Unmarshal(data, &sf); err != nil {
		t.Fatalf("state file is not valid JSON after concurrent writes: %v", err)
	}
}

func TestCooldownLength(t *testing.T) {
	c := Cooldown{Base: time.Minute, Max: 10 * time.Minute}
	var got []time.Duration
	for n := 1; n <= 6; n++ {
		got = append(got, c.length(n))
	}
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 10 * time.Minute, 10 * time.Minute}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lengths (-want +got):\n%s", diff)
	}
	if d := c.length(1000); d != 10*time.Minute {
		t.Errorf("length(1000) = %v", d)
	}
}

func TestBackoffDelay(t *testing.T) {
	b := Backoff{Base: time.Second, Cap: 5 * time.Second}
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, b.delay(n, func() float64 { return 0.5 }))
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 2500 * time.Millisecond, 2500 * time.Millisecond}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
	if d := b.delay(1, func() float64 { return 7 }); d != 0 {
		t.Errorf("out-of-range random gives %v", d)
	}
}

func TestOrder(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in := []candidate{
		{index: 0, id: "a", health: health{failures: 2}},
		{index: 1, id: "b", health: health{failures: 1, until: now.Add(time.Minute)}},
		{index: 2, id: "c", health: health{failures: 0}},
		{index: 3, id: "d", health: health{failures: 5, until: now.Add(30 * time.Second)}},
		{index: 4, id: "e", health: health{failures: 2, until: now.Add(-time.Second)}}, // expired
		{index: 5, id: "f", health: health{failures: 3}, pinned: true},
	}
	got, healthy := order(in, now)
	var ids []string
	for _, c := range got {
		ids = append(ids, c.id)
	}
	if diff := cmp.Diff([]string{"f", "c", "a", "e", "d", "b"}, ids); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if healthy != 4 {
		t.Errorf("healthy = %d", healthy)
	}
}

func FuzzStateFile(f *testing.F) {
	f.Add(`{"version":1,"profiles":{"p":{"failures":2,"until":"2026-03-01T12:05:00Z","reason":"auth","models":{"prov/m":{"failures":1,"until":"2026-03-01T12:01:00Z","reason":"rate_limit"}}}}}`)
	f.Add(`{"version":1,"profiles":null}`)
	f.Add(`{"version":1,"profiles":{"p":null}}`)
	f.Add(`[]`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, content string) {
		path := filepath.Join(t.TempDir(), "state.json")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		s := newState(path, 8, func(Event) {})
		cands, healthy := s.candidates([]string{"p", "q"}, "prov/m", "", now)
		if len(cands) != 2 || healthy < 0 || healthy > 2 {
			t.Fatalf("candidates %+v healthy %d", cands, healthy)
		}
		s.fail("p", "prov/m", true, llm.CodeRateLimit, Cooldown{Base: time.Minute, Max: time.Hour}, 0, now)
		s.succeed("q", "prov/m", "s", now)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var sf stateFile
		if err := json.Unmarshal(data, &sf); err != nil || sf.Version != stateVersion {
			t.Fatalf("rewritten state is invalid: %v\n%s", err, data)
		}
	})
}

func BenchmarkOrder(b *testing.B) {
	s := newState("", 16, func(Event) {})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i := range 8 {
		id := fmt.Sprint("prov:", i)
		ids = append(ids, id)
		if i%2 == 0 {
			s.fail(id, "prov/m", i%4 == 0, llm.CodeRateLimit, Cooldown{Base: time.Minute, Max: time.Hour}, 0, now)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.candidates(ids, "prov/m", "", now)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ids)), "ns/profile")
}
