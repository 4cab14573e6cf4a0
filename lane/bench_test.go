package lane_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

func perOp(b *testing.B) float64 {
	return float64(b.Elapsed().Microseconds()) / float64(b.N)
}

// BenchmarkAcquireRelease: one request slot taken and given back, no
// contention.
func BenchmarkAcquireRelease(b *testing.B) {
	s, _ := lane.New(lane.Options{})
	ctx := context.Background()
	for b.Loop() {
		_, sl, err := s.Acquire(ctx, lane.Request{Provider: "p"})
		if err != nil {
			b.Fatal(err)
		}
		sl.Release()
	}
	b.ReportMetric(perOp(b), "µs/op")
}

// BenchmarkEnterRelease: one session run entered and left.
func BenchmarkEnterRelease(b *testing.B) {
	s, _ := lane.New(lane.Options{})
	ctx := context.Background()
	for b.Loop() {
		_, r, err := s.Enter(ctx, lane.RunOptions{Session: "s"})
		if err != nil {
			b.Fatal(err)
		}
		r.Release()
	}
	b.ReportMetric(perOp(b), "µs/op")
}

// BenchmarkEnterReleaseLockFile is BenchmarkEnterRelease for a session
// shared across processes: the lock file is taken and let go, and the
// cross-process queue is looked at, every run.
func BenchmarkEnterReleaseLockFile(b *testing.B) {
	s, _ := lane.New(lane.Options{})
	ctx := context.Background()
	lock := filepath.Join(b.TempDir(), "s.jsonl.run.lock")
	for b.Loop() {
		_, r, err := s.Enter(ctx, lane.RunOptions{Session: "s", LockFile: lock})
		if err != nil {
			b.Fatal(err)
		}
		r.Release()
	}
	b.ReportMetric(perOp(b), "µs/op")
}

// BenchmarkQueuedHandoff: 8 goroutines contend for a cap of 1, so
// nearly every request is queued and handed its slot by a release.
func BenchmarkQueuedHandoff(b *testing.B) {
	s, _ := lane.New(lane.Options{MaxRequests: 1})
	ctx := context.Background()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, sl, err := s.Acquire(ctx, lane.Request{Priority: lane.Worker})
			if err != nil {
				b.Error(err)
				return
			}
			sl.Release()
		}
	})
	b.ReportMetric(perOp(b), "µs/op")
}

// BenchmarkSessions100: 100 sessions in one process, each running prompts
// of two model requests (a tool call, then the answer) through the lane
// middleware over the faux provider, with a cap of 4. Each model request
// takes the latency given (a timer, standing for the model's time).
func BenchmarkSessions100(b *testing.B) {
	for _, latency := range []time.Duration{0, time.Millisecond} {
		b.Run(fmt.Sprintf("latency=%v", latency), func(b *testing.B) { benchSessions(b, 100, latency) })
	}
}

func benchSessions(b *testing.B, sessions int, latency time.Duration) {
	var mu sync.Mutex
	var waits []time.Duration
	s, _ := lane.New(lane.Options{MaxRequests: 4, Observe: func(e lane.Event) {
		if e.Type == lane.EventGranted {
			mu.Lock()
			waits = append(waits, e.Waited)
			mu.Unlock()
		}
	}})
	reply := func(text string) faux.Reply {
		return faux.Reply{Func: func(ctx context.Context, _ *llm.Request) (llm.Message, error) {
			if latency > 0 {
				t := time.NewTimer(latency)
				defer t.Stop()
				select {
				case <-t.C:
				case <-ctx.Done():
					return llm.Message{}, ctx.Err()
				}
			}
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(text)}}, nil
		}}
	}
	providers := make([]llm.Provider, sessions)
	fauxes := make([]*faux.Provider, sessions)
	for i := range providers {
		fauxes[i] = faux.New()
		providers[i] = lane.Middleware(s)(fauxes[i])
	}
	req := fauxRequest()
	quota := make([]int, sessions)
	for i := range quota {
		quota[i] = b.N / sessions
		if i < b.N%sessions {
			quota[i]++
		}
		for range quota[i] {
			fauxes[i].Push(reply("calling a tool"), reply("done"))
		}
	}
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprint("session-", i)
			for range quota[i] {
				ctx, run, err := s.Enter(context.Background(), lane.RunOptions{Session: key})
				if err != nil {
					b.Error(err)
					return
				}
				for range 2 {
					if _, err := llm.Collect(ctx, providers[i], req); err != nil {
						b.Error(err)
					}
				}
				run.Release()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(waits)
	p95 := waits[len(waits)*95/100]
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "runs/s")
	b.ReportMetric(float64(p95.Microseconds())/1000, "p95-wait-ms")
	if st := s.Stats(); st.InUse != 0 || st.Waiting != 0 {
		b.Fatalf("left over %+v", st)
	}
}
