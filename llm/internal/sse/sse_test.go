package sse

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type got struct {
	Type, Data, ID string
}

func readAll(t *testing.T, s string, chunk int) ([]got, error) {
	t.Helper()
	var src io.Reader = strings.NewReader(s)
	if chunk > 0 {
		src = &chunkReader{s: s, n: chunk}
	}
	r := NewReader(src)
	var out []got
	for {
		ev, err := r.Next()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		out = append(out, got{ev.Type, string(ev.Data), ev.ID})
	}
}

type chunkReader struct {
	s string
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := min(c.n, len(p), len(c.s))
	copy(p, c.s[:n])
	c.s = c.s[n:]
	return n, nil
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []got
		err  error
	}{
		{"lf", "event: a\ndata: 1\n\ndata: 2\n\n", []got{{"a", "1", ""}, {"", "2", ""}}, nil},
		{"crlf", "data: x\r\n\r\ndata: y\r\n\r\n", []got{{"", "x", ""}, {"", "y", ""}}, nil},
		{"cr", "data: x\r\rdata: y\r\r", []got{{"", "x", ""}, {"", "y", ""}}, nil},
		{"multiline data", "data: a\ndata: b\n\n", []got{{"", "a\nb", ""}}, nil},
		{"comments and no space", ": ping\ndata:x\n\n", []got{{"", "x", ""}}, nil},
		{"bom", "\xEF\xBB\xBFdata: x\n\n", []got{{"", "x", ""}}, nil},
		{"id kept", "id: 7\ndata: x\n\ndata: y\n\n", []got{{"", "x", "7"}, {"", "y", "7"}}, nil},
		{"event without data is dropped", "event: a\n\ndata: x\n\n", []got{{"", "x", ""}}, nil},
		{"unterminated last event", "data: x\n\ndata: y", []got{{"", "x", ""}}, io.ErrUnexpectedEOF},
		{"empty", "", nil, nil},
		{"padding inside json", "data: {\"a\":1}      \n\n", []got{{"", "{\"a\":1}      ", ""}}, nil},
	}
	for _, tt := range tests {
		for _, chunk := range []int{0, 1, 3} {
			t.Run(tt.name, func(t *testing.T) {
				out, err := readAll(t, tt.in, chunk)
				if !errors.Is(err, tt.err) {
					t.Fatalf("chunk %d: err = %v, want %v", chunk, err, tt.err)
				}
				if d := cmp.Diff(tt.want, out); d != "" {
					t.Fatalf("chunk %d: events (-want +got):\n%s", chunk, d)
				}
			})
		}
	}
}

func TestLineTooLong(t *testing.T) {
	r := NewReader(strings.NewReader("data: " + strings.Repeat("x", 100<<10) + "\n\n"))
	r.MaxLine = 64 << 10
	if _, err := r.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err = %v, want ErrLineTooLong", err)
	}
}

func FuzzReader(f *testing.F) {
	f.Add("event: a\ndata: 1\n\n")
	f.Add("data: x\r\n\r\n")
	f.Add("data: x\r\rdata: y\r")
	f.Add(": c\nid: 1\nretry: 5\ndata:\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		r := NewReader(strings.NewReader(s))
		for range 10000 {
			ev, err := r.Next()
			if err != nil {
				return
			}
			if len(ev.Data) > len(s) {
				t.Fatalf("data longer than input")
			}
		}
		t.Fatalf("reader did not finish")
	})
}

func BenchmarkReader(b *testing.B) {
	var sb strings.Builder
	const n = 1000
	for range n {
		sb.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hello\"}}\n\n")
	}
	s := sb.String()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r := NewReader(strings.NewReader(s))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "events/s")
}

func TestReset(t *testing.T) {
	r := NewReader(strings.NewReader("event: a\nid: 1\ndata: " + strings.Repeat("x", 40<<10) + "\n\ndata: partial"))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	r.Reset(strings.NewReader("data: y\r\n\r\n"))
	ev, err := r.Next()
	if err != nil || ev.Type != "" || string(ev.Data) != "y" || ev.ID != "" || ev.Retry != -1 {
		t.Fatalf("after Reset: %+v, %v", ev, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("err = %v, want EOF", err)
	}
}

// Streams such as the Responses API alternate between a handful of event
// names; once each name has been seen, reading more events of those
// names allocates nothing, and each event still carries its own name.
func TestEventNamesShared(t *testing.T) {
	var sb strings.Builder
	names := []string{"a.delta", "b.delta", "a.delta", "c.done", "b.delta"}
	for range 20 {
		for _, n := range names {
			sb.WriteString("event: " + n + "\ndata: {}\n\n")
		}
	}
	stream := sb.String()
	r := NewReader(strings.NewReader(stream))
	for i := 0; ; i++ {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil || ev.Type != names[i%len(names)] {
			t.Fatalf("event %d: %q, %v; want %q", i, ev.Type, err, names[i%len(names)])
		}
	}
	src := strings.NewReader(stream)
	allocs := testing.AllocsPerRun(10, func() {
		src.Reset(stream)
		r.Reset(src)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	})
	if allocs > 0 {
		t.Errorf("%v allocations per stream of known names, want 0", allocs)
	}
}
