package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinhq/rein/internal/cputime"
)

// The benchmarks of this file drive one server over real HTTP on
// loopback with the scripted model. They report wall time and the
// process's CPU time: on a shared machine the second says what the
// server cost, the first what a client waited.

// benchClient is an HTTP client that keeps a connection per concurrent
// request instead of reopening them (two per session: its event stream
// and its requests).
func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096}}
}

// do sends one request and decodes a JSON answer into out; an answer
// other than want is an error.
func (f *fixture) do(c *http.Client, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, f.ts.URL+path, rd)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// openStream opens a session's event stream with c, from the start.
func (f *fixture) openStream(ctx context.Context, c *http.Client, id string) (*stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(ctx, "GET", f.ts.URL+"/v1/sessions/"+id+"/events", nil)
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != 200 {
		cancel()
		resp.Body.Close()
		return nil, fmt.Errorf("events: %d", resp.StatusCode)
	}
	return &stream{resp: resp, rd: bufio.NewReader(resp.Body), cancel: cancel}, nil
}

// percentile is the p-th percentile (0 < p ≤ 100) of sorted ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(float64(len(ds))*p/100+0.5) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// concurrentSessions is how many sessions BenchmarkConcurrentSessions
// runs at once.
const concurrentSessions = 1000

// BenchmarkConcurrentSessions runs 1,000 sessions at once through one
// server: each client creates a session and opens its event stream;
// when all are open, every client posts a prompt at the same moment and
// reads its stream until the run ends, then deletes the session. It
// reports the requests served per second of wall time, the time from
// posting the prompt to the stream's first event of the run (the queued
// or started "run" event) and to its first model delta (model requests
// wait for the lanes' global cap), CPU time, and the errors, which must be
// none.
func BenchmarkConcurrentSessions(b *testing.B) {
	f := newFixture(b, texts(1, "a short reply from the scripted model"), nil)
	c := benchClient()
	defer c.CloseIdleConnections()
	var first, delta []time.Duration
	var requests, errs atomic.Int64
	var wall, cpu time.Duration
	for b.Loop() {
		w0, c0 := time.Now(), cputime.Self()
		var mu sync.Mutex
		var wg, opened sync.WaitGroup
		start := make(chan struct{})
		opened.Add(concurrentSessions)
		for range concurrentSessions {
			wg.Go(func() {
				fe, de, err := oneSession(f, c, &opened, start, &requests)
				if err != nil {
					if errs.Add(1) <= 3 {
						b.Log(err)
					}
					return
				}
				mu.Lock()
				first, delta = append(first, fe), append(delta, de)
				mu.Unlock()
			})
		}
		opened.Wait()
		close(start)
		wg.Wait()
		wall += time.Since(w0)
		cpu += cputime.Self() - c0
	}
	slices.Sort(first)
	slices.Sort(delta)
	b.ReportMetric(float64(requests.Load())/wall.Seconds(), "req/s")
	b.ReportMetric(ms(percentile(first, 50)), "p50-first-event-ms")
	b.ReportMetric(ms(percentile(first, 99)), "p99-first-event-ms")
	b.ReportMetric(ms(percentile(delta, 50)), "p50-first-delta-ms")
	b.ReportMetric(ms(percentile(delta, 99)), "p99-first-delta-ms")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(errs.Load()), "errors")
	if errs.Load() > 0 {
		b.Fatalf("%d of %d sessions failed", errs.Load(), concurrentSessions*b.N)
	}
}

// oneSession is one client of BenchmarkConcurrentSessions. It marks
// opened done once its stream is open (or it failed) and prompts when
// start closes.
func oneSession(f *fixture, c *http.Client, opened *sync.WaitGroup, start chan struct{}, requests *atomic.Int64) (firstEvent, firstDelta time.Duration, err error) {
	once := sync.OnceFunc(opened.Done)
	defer once()
	var in SessionInfo
	if err := f.do(c, "POST", "/v1/sessions", nil, http.StatusCreated, &in); err != nil {
		return 0, 0, err
	}
	requests.Add(1)
	st, err := f.openStream(context.Background(), c, in.ID)
	if err != nil {
		return 0, 0, err
	}
	requests.Add(1)
	defer st.close()
	once()
	<-start
	t0 := time.Now()
	var acc Accepted
	if err := f.do(c, "POST", "/v1/sessions/"+in.ID+"/prompt", map[string]string{"text": "hi"}, http.StatusAccepted, &acc); err != nil {
		return 0, 0, err
	}
	requests.Add(1)
	ended := runEnded(acc.RunID)
	for {
		ev, err := st.next()
		if err != nil {
			return 0, 0, fmt.Errorf("session %s: stream: %v", in.ID, err)
		}
		if firstEvent == 0 {
			firstEvent = time.Since(t0)
		}
		if firstDelta == 0 && ev.typ() == "message_update" {
			firstDelta = time.Since(t0)
		}
		if ended(ev) {
			if r := ev.run(); r.Status != "completed" {
				return 0, 0, fmt.Errorf("session %s: run %+v", in.ID, r)
			}
			break
		}
	}
	if err := f.do(c, "DELETE", "/v1/sessions/"+in.ID, nil, http.StatusOK, nil); err != nil {
		return 0, 0, err
	}
	requests.Add(1)
	return firstEvent, firstDelta, nil
}

// idleSessions is how many sessions BenchmarkIdleSessionMemory opens.
const idleSessions = 500

// BenchmarkIdleSessionMemory opens sessions that run nothing and
// reports the heap in use, the goroutines and the file descriptors each
// one adds, the heap measured after a garbage collection.
func BenchmarkIdleSessionMemory(b *testing.B) {
	f := newFixture(b, texts(1, "unused"), nil)
	c := benchClient()
	defer c.CloseIdleConnections()
	var heap, goroutines, fds float64
	for b.Loop() {
		h0, g0, f0 := heapInUse(), runtime.NumGoroutine(), openFDs(b)
		var ids []string
		for range idleSessions {
			var in SessionInfo
			if err := f.do(c, "POST", "/v1/sessions", nil, http.StatusCreated, &in); err != nil {
				b.Fatal(err)
			}
			ids = append(ids, in.ID)
		}
		heap += float64(heapInUse()-h0) / idleSessions
		goroutines += float64(runtime.NumGoroutine()-g0) / idleSessions
		fds += float64(openFDs(b)-f0) / idleSessions
		for _, id := range ids {
			if err := f.do(c, "DELETE", "/v1/sessions/"+id, nil, http.StatusOK, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(heap/float64(b.N)/1024, "KB/session")
	b.ReportMetric(goroutines/float64(b.N), "goroutines/session")
	b.ReportMetric(fds/float64(b.N), "fds/session")
}

// openFDs counts the process's open file descriptors.
func openFDs(b *testing.B) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		b.Fatalf("counting file descriptors: %v", err)
	}
	return len(ents)
}

// heapInUse is the heap in use after a full collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// fanoutDeltas is how many deltas each fan-out measurement streams.
const fanoutDeltas = 200

// BenchmarkFanout measures the latency a session's subscribers add: the
// model emits a delta (stamped as it leaves the model) only when every
// subscriber has read the one before, and each subscriber stamps the
// delta when its line arrives. It reports the p99 of that latency with
// one subscriber and with 100, and their difference.
func BenchmarkFanout(b *testing.B) {
	var one, hundred []time.Duration
	var wall, cpu time.Duration
	for b.Loop() {
		w0, c0 := time.Now(), cputime.Self()
		one = append(one, fanout(b, 1)...)
		hundred = append(hundred, fanout(b, 100)...)
		wall += time.Since(w0)
		cpu += cputime.Self() - c0
	}
	slices.Sort(one)
	slices.Sort(hundred)
	b.ReportMetric(ms(percentile(one, 50)), "p50-1sub-ms")
	b.ReportMetric(ms(percentile(one, 99)), "p99-1sub-ms")
	b.ReportMetric(ms(percentile(hundred, 50)), "p50-100sub-ms")
	b.ReportMetric(ms(percentile(hundred, 99)), "p99-100sub-ms")
	b.ReportMetric(ms(percentile(hundred, 99)-percentile(one, 99)), "added-p99-ms")
	b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cpu/wall")
}

// fanout streams fanoutDeltas deltas to subs subscribers of one session
// and returns every (delta, subscriber) latency.
func fanout(b *testing.B, subs int) []time.Duration {
	p := newPacedModel(fanoutDeltas, subs)
	f := newFixture(b, nil, func(o *Options) { o.Open = pacedOpener(b, o.Workdir, p) })
	c := benchClient()
	defer c.CloseIdleConnections()
	id := f.create(b, nil)
	streams := make([]*stream, subs)
	for i := range streams {
		st, err := f.openStream(context.Background(), c, id)
		if err != nil {
			b.Fatal(err)
		}
		defer st.close()
		streams[i] = st
	}
	acc := f.prompt(b, id, "talk", "")
	out := make([][]time.Duration, subs)
	var wg sync.WaitGroup
	errs := make(chan error, subs)
	for i, st := range streams {
		wg.Go(func() {
			ended := runEnded(acc.RunID)
			for {
				ev, err := st.next()
				if err != nil {
					errs <- err
					return
				}
				at := time.Now()
				if k, ok := pacedIndex(ev.data); ok {
					out[i] = append(out[i], at.Sub(p.sent(k)))
					p.read(k)
				}
				if ended(ev) {
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	var all []time.Duration
	for i, o := range out {
		if len(o) != fanoutDeltas {
			b.Fatalf("subscriber %d read %d deltas of %d", i, len(o), fanoutDeltas)
		}
		all = append(all, o...)
	}
	return all
}
