package session

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestUTCTime checks that utcTime parses exactly what time.Time's
// UnmarshalJSON does, and leaves every other spelling to it.
func TestUTCTime(t *testing.T) {
	cases := []string{
		"2026-05-14T10:00:00Z", "2026-05-14T10:00:00.1Z", "2026-05-14T10:00:00.123456789Z",
		"2026-05-14T10:00:00.000000000Z", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z",
		"2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999Z", "1969-12-31T23:59:59.5Z", "2026-13-01T00:00:00Z",
		"2026-04-31T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z",
		"2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.1234567890Z", "2026-01-01T00:00:00+02:00",
		"2026-01-01 00:00:00Z", "2026-1-01T00:00:00Z", "2026-01-01T00:00:00z", "2026-01-01T00:00:0aZ",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		ts := time.Unix(rng.Int64N(400*365*86400)-200*365*86400, 0).UTC()
		layout := "2006-01-02T15:04:05Z"
		if n := rng.IntN(10); n > 0 {
			layout = "2006-01-02T15:04:05." + "000000000"[:n] + "Z"
			ts = ts.Add(time.Duration(rng.Int64N(1e9)))
		}
		cases = append(cases, ts.Format(layout))
	}
	for _, c := range cases {
		var want time.Time
		werr := want.UnmarshalJSON([]byte(`"` + c + `"`))
		got, ok := utcTime([]byte(c))
		if !ok {
			if werr == nil && c[len(c)-1] == 'Z' && len(c) <= 30 && c[:4] != "0000" {
				t.Errorf("%s: not taken, UnmarshalJSON gives %v", c, want)
			}
			continue
		}
		if werr != nil || got != want {
			t.Errorf("%s: got %#v, UnmarshalJSON gives %#v (%v)", c, got, want, werr)
		}
	}
}
