package server

import (
	"bytes"
	"context"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

// pacedModel is a model that streams one reply of n text deltas "#k; "
// (k from 0), emitting delta k only after every one of subs readers has
// read delta k-1, and stamping each delta as it leaves the model.
type pacedModel struct {
	n, subs int
	mu      sync.Mutex
	stamps  []time.Time
	reads   []int
	next    []chan struct{} // next[k] closes when delta k may go
}

func newPacedModel(n, subs int) *pacedModel {
	p := &pacedModel{n: n, subs: subs, stamps: make([]time.Time, n), reads: make([]int, n), next: make([]chan struct{}, n)}
	for k := range p.next {
		p.next[k] = make(chan struct{})
	}
	close(p.next[0])
	return p
}

// sent is when delta k left the model.
func (p *pacedModel) sent(k int) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stamps[k]
}

// read records that one reader has read delta k.
func (p *pacedModel) read(k int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reads[k]++
	if p.reads[k] == p.subs && k+1 < p.n {
		close(p.next[k+1])
	}
}

// Stream implements llm.Provider.
func (p *pacedModel) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		e := llm.NewEmitter(yield, req)
		if !e.Start(llm.Message{ResponseID: "paced"}) {
			return
		}
		i, ok := e.TextStart()
		if !ok {
			return
		}
		for k := range p.n {
			select {
			case <-p.next[k]:
			case <-ctx.Done():
				e.Fail(ctx.Err())
				return
			}
			p.mu.Lock()
			p.stamps[k] = time.Now()
			p.mu.Unlock()
			if !e.Delta(i, "#"+strconv.Itoa(k)+"; ") {
				return
			}
		}
		if !e.End(i) {
			return
		}
		e.Usage().Output = p.n
		e.Finish("")
	}
}

// pacedIndex is the k of a message_update event carrying delta "#k;".
func pacedIndex(data []byte) (int, bool) {
	if !bytes.Contains(data, []byte(`"type":"message_update"`)) || !bytes.Contains(data, []byte(`"type":"text_delta"`)) {
		return 0, false
	}
	a := bytes.IndexByte(data, '#')
	if a < 0 {
		return 0, false
	}
	z := bytes.IndexByte(data[a:], ';')
	if z < 0 {
		return 0, false
	}
	k, err := strconv.Atoi(string(data[a+1 : a+z]))
	return k, err == nil
}

// pacedOpener opens agents in dir that talk to p.
func pacedOpener(t testing.TB, dir string, p *pacedModel) Opener {
	home := t.TempDir()
	return func(ctx context.Context, r OpenRequest) (*coding.Agent, error) {
		return coding.Open(ctx, coding.Options{
			Workdir: dir, Provider: p, ModelInfo: faux.Model(),
			Getenv: func(k string) string {
				return map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}[k]
			},
			Environ:     func() []string { return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")} },
			Interactive: true, PermissionMode: "auto_all", Session: r.Session,
			NoRunRecords: true, Frontend: "http", MaxTurns: 20,
		})
	}
}
