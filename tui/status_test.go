package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
)

// The status line shows spend apart from context fill, and against the
// cost limit when there is one.
func TestStatusShowsSpendAgainstLimit(t *testing.T) {
	for _, c := range []struct {
		max  float64
		want string
	}{{0, "· $0.1234 "}, {0.5, "· $0.1234 of $0.50"}} {
		app := New(context.Background(), &testBackend{maxCost: c.max}, Options{Plain: true})
		app.tr.Usage = llm.Usage{Input: 1000, Output: 10, Cost: llm.Cost{Total: 0.1234}}
		app.tr.Context = 50_000
		line := app.statusLine(200)
		if !strings.Contains(line, c.want) || !strings.Contains(line, "ctx 25%") {
			t.Errorf("max %v: status line %q lacks %q or the context fill", c.max, line, c.want)
		}
	}
}
