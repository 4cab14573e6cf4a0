package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm/faux"
)

func TestPromptStreamsEvents(t *testing.T) {
	f := newFixture(t, texts(3, "hello there"), nil)
	id := f.create(t, nil)
	st := f.open(t, id, 0)
	defer st.close()
	acc := f.prompt(t, id, "say hello", "")
	if acc.RunID == "" || acc.Queued || acc.Position != 0 {
		t.Fatalf("accepted = %+v, want a run that starts now", acc)
	}
	evs := st.until(t, runEnded(acc.RunID))
	var types []string
	for i, ev := range evs {
		if ev.id != uint64(i+1) {
			t.Fatalf("event %d has id %d, want %d", i, ev.id, i+1)
		}
		types = append(types, ev.typ())
	}
	for _, want := range []string{"run", "agent_start", "message_update", "message_end", "agent_end"} {
		if !slices.Contains(types, want) {
			t.Errorf("no %s event in %v", want, types)
		}
	}
	last := evs[len(evs)-1].run()
	if last.Status != "completed" || last.Text != "hello there" {
		t.Errorf("run = %+v", last)
	}
	var msgs struct{ Messages []json.RawMessage }
	f.call(t, "GET", "/v1/sessions/"+id+"/messages", nil, &msgs)
	if len(msgs.Messages) != 2 {
		t.Errorf("messages = %d, want the prompt and the reply", len(msgs.Messages))
	}
	var run runInfo
	if resp := f.call(t, "GET", "/v1/sessions/"+id+"/runs/"+acc.RunID, nil, &run); resp.StatusCode != 200 || run.Status != "completed" {
		t.Errorf("run = %d %+v", resp.StatusCode, run)
	}
}

func TestPromptsWhileBusyAreQueued(t *testing.T) {
	g := newGate()
	f := newFixture(t, func() []faux.Reply {
		return []faux.Reply{g.reply("one"), faux.Text("two"), faux.Text("three")}
	}, nil)
	id := f.create(t, nil)
	st := f.open(t, id, 0)
	defer st.close()
	a1 := f.prompt(t, id, "first", "")
	// Wait until the first run holds the model call, then send more.
	st.until(t, func(ev sseEvent) bool { return ev.typ() == "agent_start" })
	a2 := f.prompt(t, id, "second", "queue")
	a3 := f.prompt(t, id, "third", "")
	if a1.Queued || !a2.Queued || a2.Position != 1 || !a3.Queued || a3.Position != 2 {
		t.Fatalf("accepted = %+v %+v %+v", a1, a2, a3)
	}
	var info SessionInfo
	f.call(t, "GET", "/v1/sessions/"+id, nil, &info)
	if !info.Busy || info.Queued != 2 {
		t.Errorf("session = %+v, want busy with 2 queued", info)
	}
	close(g.release)
	st.until(t, runEnded(a3.RunID))
	var runs struct{ Runs []runInfo }
	f.call(t, "GET", "/v1/sessions/"+id+"/runs", nil, &runs)
	var got []string
	for _, r := range runs.Runs {
		got = append(got, r.Status+":"+r.Text)
	}
	want := []string{"completed:one", "completed:two", "completed:three"}
	if !slices.Equal(got, want) {
		t.Errorf("runs = %v, want %v", got, want)
	}
}

func TestSteerFollowUpInterruptAbort(t *testing.T) {
	// g holds the first run until the steer and the follow-up are
	// queued; hold is never released, so the fourth reply waits until
	// the interrupt aborts it, however fast or slow the machine is.
	g, hold := newGate(), newGate()
	f := newFixture(t, func() []faux.Reply {
		return []faux.Reply{g.reply("working"), faux.Text("steered"), faux.Text("followed"), hold.reply("never"), faux.Text("interrupted")}
	}, nil)
	id := f.create(t, nil)
	st := f.open(t, id, 0)
	defer st.close()
	a1 := f.prompt(t, id, "start", "")
	st.until(t, func(ev sseEvent) bool { return ev.typ() == "agent_start" })
	var s1, s2 Accepted
	if resp := f.call(t, "POST", "/v1/sessions/"+id+"/steer", map[string]string{"text": "go left"}, &s1); resp.StatusCode != 202 || s1.RunID != a1.RunID || s1.Queued {
		t.Fatalf("steer = %d %+v", resp.StatusCode, s1)
	}
	if resp := f.call(t, "POST", "/v1/sessions/"+id+"/follow_up", map[string]string{"text": "then stop"}, &s2); resp.StatusCode != 202 || s2.RunID != a1.RunID {
		t.Fatalf("follow_up = %d %+v", resp.StatusCode, s2)
	}
	close(g.release)
	evs := st.until(t, runEnded(a1.RunID))
	var users []string
	for _, ev := range evs {
		if ev.typ() == "message_end" && strings.Contains(string(ev.data), `"role":"user"`) {
			users = append(users, string(ev.data))
		}
	}
	if len(users) != 3 || !strings.Contains(users[1], "go left") || !strings.Contains(users[2], "then stop") {
		t.Fatalf("user messages of the run = %v", users)
	}
	if r := evs[len(evs)-1].run(); r.Text != "followed" {
		t.Errorf("run text = %q", r.Text)
	}

	// The fourth reply waits forever: an interrupt aborts it and runs
	// the new prompt next.
	g2 := f.prompt(t, id, "slow", "")
	st.until(t, func(ev sseEvent) bool { return ev.typ() == "agent_start" })
	// The interrupt must meet the request waiting on hold; sent before
	// the request reached the model, it would leave that reply to the
	// next run.
	<-hold.entered
	in := f.prompt(t, id, "now this", "interrupt")
	if !in.Queued || in.Position != 1 {
		t.Fatalf("interrupt = %+v", in)
	}
	evs = st.until(t, runEnded(in.RunID))
	var statuses []string
	for _, ev := range evs {
		if r := ev.run(); ev.typ() == "run" && r.Ended != nil {
			statuses = append(statuses, r.ID+"="+r.Status)
		}
	}
	if want := []string{g2.RunID + "=aborted", in.RunID + "=completed"}; !slices.Equal(statuses, want) {
		t.Errorf("ended runs = %v, want %v", statuses, want)
	}

	var ab map[string]any
	if resp := f.call(t, "POST", "/v1/sessions/"+id+"/abort", map[string]bool{"all": true}, &ab); resp.StatusCode != 200 || ab["aborted"] != "" {
		t.Errorf("abort while idle = %d %v", resp.StatusCode, ab)
	}
}

func TestQueueFullAnswers503(t *testing.T) {
	g := newGate()
	f := newFixture(t, func() []faux.Reply {
		return []faux.Reply{g.reply("a"), faux.Text("b"), faux.Text("c")}
	}, func(o *Options) { o.MaxQueue = 1 })
	id := f.create(t, nil)
	st := f.open(t, id, 0)
	defer st.close()
	f.prompt(t, id, "one", "")
	st.until(t, func(ev sseEvent) bool { return ev.typ() == "agent_start" })
	last := f.prompt(t, id, "two", "")
	var e errorBody
	resp := f.call(t, "POST", "/v1/sessions/"+id+"/prompt", map[string]string{"text": "three"}, &e)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || e.Error.Code != "queue_full" {
		t.Fatalf("over the queue = %d %q %+v", resp.StatusCode, resp.Header.Get("Retry-After"), e.Error)
	}
	close(g.release)
	st.until(t, runEnded(last.RunID))
}

func TestSessionsListForkDeleteResume(t *testing.T) {
	f := newFixture(t, texts(4, "answer"), nil)
	id := f.create(t, nil)
	st := f.open(t, id, 0)
	acc := f.prompt(t, id, "question", "")
	st.until(t, runEnded(acc.RunID))
	st.close()

	var list struct{ Sessions []SessionInfo }
	f.call(t, "GET", "/v1/sessions", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != id || list.Sessions[0].Path == "" {
		t.Fatalf("sessions = %+v", list.Sessions)
	}
	var forked SessionInfo
	if resp := f.call(t, "POST", "/v1/sessions/"+id+"/fork", map[string]string{}, &forked); resp.StatusCode != 201 || forked.ID == id {
		t.Fatalf("fork = %d %+v", resp.StatusCode, forked)
	}
	// The fork replays the conversation it copied as its first events.
	fs := f.open(t, forked.ID, 0)
	evs := fs.until(t, func(ev sseEvent) bool { return strings.Contains(string(ev.data), `"answer"`) })
	fs.close()
	if len(evs) != 2 {
		t.Errorf("fork replay = %d events, want the prompt and the answer", len(evs))
	}
	if resp := f.call(t, "DELETE", "/v1/sessions/"+id, nil, nil); resp.StatusCode != 200 {
		t.Fatalf("delete = %d", resp.StatusCode)
	}
	if resp := f.call(t, "GET", "/v1/sessions/"+id, nil, nil); resp.StatusCode != 404 {
		t.Errorf("deleted session = %d, want 404", resp.StatusCode)
	}
	// Stored on disk, it opens again with its conversation.
	var again SessionInfo
	if resp := f.call(t, "POST", "/v1/sessions", map[string]string{"resume": id}, &again); resp.StatusCode != 201 || again.ID != id || again.LastEventID != 2 {
		t.Fatalf("resume = %d %+v", resp.StatusCode, again)
	}
	var msgs struct{ Messages []json.RawMessage }
	f.call(t, "GET", "/v1/sessions/"+id+"/messages", nil, &msgs)
	if len(msgs.Messages) != 2 {
		t.Errorf("resumed messages = %d", len(msgs.Messages))
	}
	// A session open twice is a conflict, not a second writer.
	var e errorBody
	if resp := f.call(t, "POST", "/v1/sessions", map[string]string{"resume": id}, &e); resp.StatusCode != http.StatusConflict {
		t.Errorf("second open = %d %+v", resp.StatusCode, e.Error)
	}
}

func TestPingsKeepStreamsOpen(t *testing.T) {
	f := newFixture(t, texts(1, "x"), func(o *Options) { o.PingInterval = 1 })
	id := f.create(t, nil)
	st := f.open(t, id, 0)
	defer st.close()
	for st.pings < 3 {
		line, err := st.rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, ": ping") {
			st.pings++
		}
	}
}
