package domain

import (
	"testing"
	"time"
)

func TestPredictionVisible(t *testing.T) {
	start := time.Date(2030, 5, 1, 20, 0, 0, 0, time.UTC)
	before, after := start.Add(-time.Minute), start.Add(time.Minute)
	ev := func(st EventState) Event { return Event{ID: "2030-05-01-show", StartsAt: start, Stored: st} }
	tests := []struct {
		name   string
		ev     Event
		viewer string
		now    time.Time
		want   bool
	}{
		{"OwnerWhileOpen", ev(StateUpcoming), "owner", before, true},
		{"OtherWhileOpen", ev(StateUpcoming), "other", before, false},
		{"AnonymousWhileOpen", ev(StateUpcoming), "", before, false},
		{"OtherLockedByStart", ev(StateUpcoming), "other", after, true},
		{"AnonymousLockedByStart", ev(StateUpcoming), "", start, true},
		{"OtherLockedByBroadcastBeforeStart", ev(StateBroadcast), "other", before, true},
		{"OtherScored", ev(StateScored), "other", before, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PredictionVisible(tt.ev, "owner", tt.viewer, tt.now); got != tt.want {
				t.Fatalf("PredictionVisible = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("EmptyOwnerIsNotTheAnonymousViewer", func(t *testing.T) {
		if PredictionVisible(ev(StateUpcoming), "", "", before) {
			t.Fatal("an anonymous viewer saw an open prediction")
		}
	})
}

func TestLockedByDate(t *testing.T) {
	now := time.Date(2030, 5, 1, 0, 30, 0, 0, time.UTC)
	tests := []struct {
		id   string
		want bool
	}{
		{"2030-04-30-yesterday", true},
		{"2030-05-01-today", false}, // may start later today
		{"2030-05-02-tomorrow", false},
		{"short", false},
	}
	for _, tt := range tests {
		if got := LockedByDate(tt.id, now); got != tt.want {
			t.Errorf("LockedByDate(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}
