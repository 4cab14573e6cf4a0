package server

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm/faux"
)

// TestReconnectCyclesLoseNothing disconnects an event stream by force
// 1,000 times while a long reply streams, resuming each time with
// Last-Event-ID: the events read add up to the session's stream exactly,
// none lost, none twice.
func TestReconnectCyclesLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 reconnections")
	}
	long := strings.Repeat("abcde ", 3000) // 3,000 deltas
	f := newFixture(t, texts(1, long), func(o *Options) { o.RingSize = 1 << 16 })
	id := f.create(t, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	var got []sseEvent
	var last uint64
	acc := f.prompt(t, id, "talk", "")
	cycles, ended := 0, false
	for !ended {
		st := f.open(t, id, last)
		n := 1 + rng.IntN(3)
		for range n {
			ev, err := st.next()
			if err != nil {
				t.Fatalf("cycle %d: %v", cycles, err)
			}
			got = append(got, ev)
			last = ev.id
			if runEnded(acc.RunID)(ev) {
				ended = true
				break
			}
		}
		st.close() // abrupt: the connection is cut mid-stream
		cycles++
	}
	if cycles < 1000 {
		t.Fatalf("only %d reconnections before the run ended", cycles)
	}
	for i, ev := range got {
		if ev.id != uint64(i+1) {
			t.Fatalf("event %d has id %d: lost or repeated events", i, ev.id)
		}
	}
	// The same events as one uninterrupted stream.
	st := f.open(t, id, 0)
	defer st.close()
	ref := st.until(t, runEnded(acc.RunID))
	if len(ref) != len(got) {
		t.Fatalf("%d events over %d reconnections, %d in one stream", len(got), cycles, len(ref))
	}
	for i := range ref {
		if !bytes.Equal(ref[i].data, got[i].data) {
			t.Fatalf("event %d differs:\n%s\n%s", i+1, got[i].data, ref[i].data)
		}
	}
	t.Logf("%d events over %d forced reconnections", len(got), cycles)
}

// TestAbruptDisconnects cuts 100 connections in every state a client can
// leave one in — before the headers, mid-body, mid-stream, with garbage —
// while runs wait on the model: the server stays healthy, no prompt half
// sent becomes a run, and every run finishes.
func TestAbruptDisconnects(t *testing.T) {
	g := newGate()
	f := newFixture(t, func() []faux.Reply { return []faux.Reply{g.reply("done"), faux.Text("queued done")} }, nil)
	const sessions = 4
	var ids []string
	var runs []Accepted
	var streams []*stream
	for range sessions {
		id := f.create(t, nil)
		ids = append(ids, id)
		st := f.open(t, id, 0)
		streams = append(streams, st)
		runs = append(runs, f.prompt(t, id, "wait", ""))
		st.until(t, func(ev sseEvent) bool { return ev.typ() == "agent_start" })
	}
	addr := f.ts.Listener.Addr().String()
	for i := range 100 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		id := ids[i%sessions]
		switch i % 5 {
		case 0: // an event stream cut after its first bytes
			fmt.Fprintf(conn, "GET /v1/sessions/%s/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", id)
			bufio.NewReader(conn).ReadString('\n')
		case 1: // a prompt cut mid-body
			body := `{"text": "never sent whole"}`
			fmt.Fprintf(conn, "POST /v1/sessions/%s/prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n%s", id, len(body), body[:10])
		case 2: // a request cut in its headers
			fmt.Fprintf(conn, "GET /v1/sessions/%s/ev", id)
		case 3: // not HTTP at all
			conn.Write([]byte("\x00\x01garbage\r\n\r\n"))
		case 4: // a stream resumed and cut at once
			fmt.Fprintf(conn, "GET /v1/sessions/%s/events HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: 2\r\n\r\n", id)
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, not a polite close
		}
		conn.Close()
	}
	var health map[string]any
	if resp := f.call(t, "GET", "/v1/health", nil, &health); resp.StatusCode != 200 || health["ok"] != true || health["sessions"] != float64(sessions) {
		t.Fatalf("health = %d %v", resp.StatusCode, health)
	}
	// A prompt while the runs still wait is queued, answered 202.
	q := f.prompt(t, ids[0], "after the storm", "")
	if !q.Queued || q.Position != 1 {
		t.Errorf("prompt while busy = %+v, want queued first", q)
	}
	close(g.release)
	for i, st := range streams {
		evs := st.until(t, runEnded(runs[i].RunID))
		if r := evs[len(evs)-1].run(); r.Status != "completed" {
			t.Errorf("session %d: run %+v", i, r)
		}
		if i == 0 {
			st.until(t, runEnded(q.RunID))
		}
		st.close()
	}
	for i, id := range ids {
		var list struct{ Runs []runInfo }
		f.call(t, "GET", "/v1/sessions/"+id+"/runs", nil, &list)
		want := 1
		if i == 0 {
			want = 2
		}
		if len(list.Runs) != want {
			t.Errorf("session %d has %d runs, want %d: a cut prompt became a run", i, len(list.Runs), want)
		}
	}
	if !f.srv.Idle() {
		t.Error("a run is left holding a session")
	}
}
