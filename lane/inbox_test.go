package lane_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/lane"
)

type fakeTarget struct{ log []string }

func (f *fakeTarget) Steer(s string) error    { f.log = append(f.log, "steer:"+s); return nil }
func (f *fakeTarget) FollowUp(s string) error { f.log = append(f.log, "followup:"+s); return nil }
func (f *fakeTarget) Abort()                  { f.log = append(f.log, "abort") }

func TestInboxModes(t *testing.T) {
	tg := &fakeTarget{}
	q, err := lane.NewInbox(tg, "")
	if err != nil {
		t.Fatal(err)
	}
	if q.Mode() != lane.ModeFollowUp {
		t.Fatalf("default mode %s", q.Mode())
	}
	steps := []struct {
		mode lane.QueueMode
		text string
		want lane.Delivery
	}{
		{lane.ModeSteer, "look at b.go", lane.Steered},
		{lane.ModeFollowUp, "then run tests", lane.FollowedUp},
		{lane.ModeCollect, "one", lane.Collected},
		{lane.ModeCollect, "two", lane.Collected},
		{lane.ModeInterrupt, "stop, do this", lane.Interrupted},
	}
	for _, s := range steps {
		got, err := q.SendAs(s.mode, s.text)
		if err != nil || got != s.want {
			t.Fatalf("%s %q: %s %v", s.mode, s.text, got, err)
		}
	}
	if diff := cmp.Diff([]string{"steer:look at b.go", "followup:then run tests", "abort"}, tg.log); diff != "" {
		t.Fatal(diff)
	}
	if q.Pending() != 3 {
		t.Fatalf("pending %d", q.Pending())
	}
	var next []string
	for {
		s, ok := q.Next()
		if !ok {
			break
		}
		next = append(next, s)
	}
	if diff := cmp.Diff([]string{"stop, do this", "one\n\ntwo"}, next); diff != "" {
		t.Fatal(diff)
	}
}

func TestInboxBadInput(t *testing.T) {
	tg := &fakeTarget{}
	if _, err := lane.NewInbox(tg, "shout"); err == nil || !strings.Contains(err.Error(), "steer, followup, collect or interrupt") {
		t.Fatalf("unknown mode: %v", err)
	}
	q, _ := lane.NewInbox(tg, lane.ModeCollect)
	var ce *lane.ConfigError
	if _, err := q.Send("  "); !errors.As(err, &ce) {
		t.Fatalf("empty message: %v", err)
	}
	if err := q.SetMode("nope"); err == nil || q.Mode() != lane.ModeCollect {
		t.Fatalf("bad SetMode changed the mode: %v %s", err, q.Mode())
	}
	if m, err := lane.ParseQueueMode("Follow-Up"); err != nil || m != lane.ModeFollowUp {
		t.Fatalf("%s %v", m, err)
	}
	q.Send("kept")
	if got := q.Clear(); len(got) != 1 || q.Pending() != 0 {
		t.Fatalf("clear %v", got)
	}
	if len(tg.log) != 0 {
		t.Fatalf("target touched: %v", tg.log)
	}
}
