package jsonx

import (
	"strings"
	"testing"
)

// benchInputs are shapes the hot paths see: a short stream chunk, a
// chunk carrying a long text, one carrying escaped JSON arguments.
var benchInputs = []struct{ name, in string }{
	{"chunk", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1782321928,"model":"gpt-5","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}],"usage":null}`},
	{"long", `{"type":"text","text":"` + strings.Repeat("plain words of a long reply, ", 200) + `"}`},
	{"escaped", `{"type":"tool","input":"` + strings.Repeat(`{\"path\":\"/a/b\",\n\"n\":1}`, 100) + `"}`},
	{"unicode", `{"type":"text","text":"` + strings.Repeat("été 漢字 ", 200) + `"}`},
	{"lines", `{"type":"text","text":"` + strings.Repeat(`a line of output from a tool, as logs and replies have them\n`, 60) + `"}`},
}

// benchModes runs read over each input, strictly and leniently.
func benchModes(b *testing.B, read func(s *Scanner)) {
	for _, in := range benchInputs {
		data := []byte(in.in)
		for _, lenient := range []bool{false, true} {
			name := in.name + "/strict"
			if lenient {
				name = in.name + "/lenient"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				s := Scanner{Lenient: lenient}
				for b.Loop() {
					s.Reset(data)
					read(&s)
					if s.End() != nil {
						b.Fatal(s.Err())
					}
				}
			})
		}
	}
}

// BenchmarkScanner reads every member of each input as a string or a
// skipped value.
func BenchmarkScanner(b *testing.B) {
	benchModes(b, func(s *Scanner) {
		s.Object()
		for n := 0; ; n++ {
			if _, ok := s.Member(n); !ok {
				break
			}
			if s.Peek() == '"' {
				s.Str()
			} else {
				s.Skip()
			}
		}
	})
}

// BenchmarkSkip skips each input whole.
func BenchmarkSkip(b *testing.B) { benchModes(b, func(s *Scanner) { s.Skip() }) }

// BenchmarkAppendString writes each input as a JSON string.
func BenchmarkAppendString(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.in)))
			var buf []byte
			for b.Loop() {
				buf = AppendString(buf[:0], in.in)
			}
		})
	}
}
