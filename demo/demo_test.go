package demo

import (
	"testing"
	"time"
)

// TestScheduleStaysInOneSeason: whatever the day, the demo events are in that day's season,
// three before it (oldest first) and one after it.
func TestScheduleStaysInOneSeason(t *testing.T) {
	for _, now := range []time.Time{
		time.Date(2027, 1, 1, 0, 30, 0, 0, time.UTC),
		time.Date(2027, 1, 20, 12, 0, 0, 0, time.UTC),
		time.Date(2027, 3, 1, 8, 0, 0, 0, time.UTC),
		time.Date(2027, 7, 14, 23, 59, 0, 0, time.UTC),
		time.Date(2027, 12, 20, 18, 0, 0, 0, time.UTC),
		time.Date(2027, 12, 31, 23, 0, 0, 0, time.UTC),
		time.Date(2028, 2, 29, 6, 0, 0, 0, time.FixedZone("UTC-8", -8*3600)), // 14:00 UTC
	} {
		s := Schedule(now)
		if len(s) != len(cards) {
			t.Fatalf("%d starts for %d cards", len(s), len(cards))
		}
		for i, at := range s {
			if at.Year() != now.UTC().Year() {
				t.Errorf("now %s: event %d at %s, another season", now, i, at)
			}
			if i > 0 && !at.After(s[i-1]) {
				t.Errorf("now %s: event %d at %s not after event %d at %s", now, i, at, i-1, s[i-1])
			}
		}
		if !s[2].Before(now) || !s[3].After(now) {
			t.Errorf("now %s: locked event at %s and upcoming one at %s", now, s[2], s[3])
		}
	}
}
