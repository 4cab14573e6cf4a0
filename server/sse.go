package server

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// batch is how many events one wake-up writes before flushing.
const batch = 256

// events streams a session's events as SSE. Each event is one "data:"
// line holding the JSON object of rein's event schema, with "id:" its
// sequence id in the session. A client that reconnects with
// Last-Event-ID (or ?after=N) gets exactly the events after N: the
// durable ones from the session's log, the deltas from the ring while it
// still holds them. A stream is written at the client's pace from the
// session's log, so a slow or vanished client holds nothing but its own
// connection; a write that takes longer than WriteTimeout drops the
// stream, to be resumed.
func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.session(r.PathValue("id"))
	if err != nil {
		return err
	}
	cursor, err := lastEventID(r)
	if err != nil {
		return err
	}
	if ss.hub.subscribers() >= s.o.MaxSubscribers {
		return unavailable("too_many_streams", fmt.Sprintf("the session already has %d event streams", s.o.MaxSubscribers))
	}
	reset := cursor > ss.hub.last()
	if reset {
		// An id this session never gave (the server restarted): start
		// over from the first event.
		cursor = 0
	}
	wake, stop := ss.hub.subscribe()
	defer stop()

	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 16<<10)
	flush := func() error {
		rc.SetWriteDeadline(time.Now().Add(s.o.WriteTimeout))
		if err := bw.Flush(); err != nil {
			return err
		}
		return rc.Flush()
	}
	fmt.Fprintf(bw, "retry: 1000\n")
	if reset {
		fmt.Fprintf(bw, ": reset: Last-Event-ID is newer than this session's events; replaying from the start\n")
	}
	fmt.Fprintf(bw, "\n")
	if flush() != nil {
		return nil
	}
	ping := time.NewTicker(s.o.PingInterval)
	defer ping.Stop()
	open := true
	for {
		recs, gap := ss.hub.after(cursor, batch)
		if gap {
			fmt.Fprintf(bw, ": gap: deltas after %d are no longer kept; the message_end events that follow hold their content\n\n", cursor)
		}
		for _, rec := range recs {
			bw.WriteString("id: ")
			bw.WriteString(strconv.FormatUint(rec.seq, 10))
			bw.WriteString("\ndata: ")
			bw.Write(rec.data)
			bw.WriteString("\n\n")
			cursor = rec.seq
		}
		if len(recs) > 0 || gap {
			if flush() != nil {
				return nil
			}
			if len(recs) == batch {
				continue
			}
		}
		if !open {
			return nil
		}
		select {
		case _, ok := <-wake:
			open = ok
		case <-ping.C:
			bw.WriteString(": ping\n\n")
			if flush() != nil {
				return nil
			}
		case <-r.Context().Done():
			return nil
		}
	}
}

// lastEventID reads where a stream resumes: the Last-Event-ID header,
// else the after query parameter, else 0 (from the start).
func lastEventID(r *http.Request) (uint64, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("after")
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, badRequest("Last-Event-ID %q is not an event id: ids are the decimal numbers of the id: lines", v)
	}
	return n, nil
}
