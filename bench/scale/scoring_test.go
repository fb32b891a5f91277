package scale

import "testing"

func TestLargestWithinBisects(t *testing.T) {
	for _, c := range []struct{ limit, want int }{{123_456, 123_000}, {5_000, 10_000}, {2_000_000, 1_000_000}} {
		got, below, steps := largestWithin(10_000, 1_000_000, 1_000, func(n int) bool { return n <= c.limit })
		if got != c.want || below != (c.limit < 10_000) || steps > 12 {
			t.Errorf("limit %d: got %d (below %v) in %d steps, want %d", c.limit, got, below, steps, c.want)
		}
	}
}
