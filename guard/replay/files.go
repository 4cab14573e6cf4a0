package replay

import (
	"os"
	"sync"

	"github.com/reinhq/rein/trajectory"
)

// FileResult is the replay of one recording file.
type FileResult struct {
	Path string
	// Session is the decoded recording, nil when Err is set.
	Session *trajectory.Session
	// Entries are the verdicts on its calls, in order; Summary totals them.
	Entries []Entry
	Summary Summary
	// Err is why the file could not be read or was refused.
	Err error
}

// Files reads and replays the recordings at paths, up to workers at a
// time (each session has its own guard, so they are independent), and
// yields their results in the order of paths. At most workers results are
// held at once. Stopping the iteration early waits for the files being
// replayed and starts no more.
func Files(paths []string, opts Options, workers int) func(yield func(FileResult) bool) {
	return func(yield func(FileResult) bool) {
		workers = max(1, min(workers, len(paths)))
		results := make([]chan FileResult, len(paths))
		for i := range results {
			results[i] = make(chan FileResult, 1)
		}
		slots := make(chan struct{}, workers)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		launched := make(chan struct{})
		go func() {
			defer close(launched)
			for i, p := range paths {
				select {
				case slots <- struct{}{}:
				case <-stop:
					return
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] <- replayFile(p, opts)
				}()
			}
		}()
		defer func() {
			close(stop)
			<-launched
			wg.Wait()
		}()
		for i := range paths {
			r := <-results[i]
			<-slots
			if !yield(r) {
				return
			}
		}
	}
}

func replayFile(path string, opts Options) FileResult {
	r := FileResult{Path: path}
	f, err := os.Open(path)
	if err != nil {
		r.Err = err
		return r
	}
	s, err := trajectory.Read(f, path)
	f.Close()
	if err != nil {
		r.Err = err
		return r
	}
	r.Session = s
	r.Summary = Run(s, path, opts, func(e Entry) { r.Entries = append(r.Entries, e) })
	return r
}
