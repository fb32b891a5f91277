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

func TestPredictionVisibleWithoutEvent(t *testing.T) {
	now := time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		id          string
		own, scored bool
		want        bool
	}{
		{"Own", "2030-05-02-later", true, false, true},
		{"Scored", "2030-05-01-today", false, true, true},
		{"DatedBeforeToday", "2030-04-30-yesterday", false, false, true},
		{"TodayUnscored", "2030-05-01-today", false, false, false},
		{"LaterUnscored", "2030-05-02-later", false, false, false},
	}
	for _, tt := range tests {
		if got := PredictionVisibleWithoutEvent(tt.id, tt.own, tt.scored, now); got != tt.want {
			t.Errorf("%s: PredictionVisibleWithoutEvent = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCheckSubmit(t *testing.T) {
	start := time.Date(2030, 5, 1, 20, 0, 0, 0, time.UTC)
	ev := func(st EventState) Event { return Event{ID: "2030-05-01-show", StartsAt: start, Stored: st} }
	tests := []struct {
		name   string
		ev     Event
		scored bool
		now    time.Time
		want   Code
	}{
		{"Open", ev(StateUpcoming), false, start.Add(-time.Second), ""},
		{"AtTheStart", ev(StateUpcoming), false, start, CodeLocked},
		{"Broadcast", ev(StateBroadcast), false, start.Add(-time.Hour), CodeLocked},
		{"Scored", ev(StateScored), false, start.Add(-time.Hour), CodeLocked},
		{"PredictionScored", ev(StateUpcoming), true, start.Add(-time.Hour), CodeLocked},
	}
	for _, tt := range tests {
		if got := ErrorCode(CheckSubmit(tt.ev, tt.scored, tt.now)); got != tt.want {
			t.Errorf("%s: CheckSubmit = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRefusedSubmit(t *testing.T) {
	start := time.Date(2030, 5, 1, 20, 0, 0, 0, time.UTC)
	now := start.Add(-time.Hour)
	read := Event{ID: "2030-05-01-show", Name: "Show", StartsAt: start, Stored: StateUpcoming, CardVersion: 3}
	with := func(f func(*Event)) Event { e := read; f(&e); return e }
	tests := []struct {
		name    string
		current Event
		want    Code
	}{
		{"Broadcast", with(func(e *Event) { e.Stored = StateBroadcast }), CodeLocked},
		{"StartMovedBeforeNow", with(func(e *Event) { e.StartsAt = now.Add(-time.Minute) }), CodeLocked},
		{"LockedAndCardChanged", with(func(e *Event) { e.Stored = StateBroadcast; e.CardVersion = 4 }), CodeLocked},
		{"CardChanged", with(func(e *Event) { e.CardVersion = 4 }), CodeConflict},
		{"Renamed", with(func(e *Event) { e.Name = "Show II" }), ""},
		{"StartMovedLater", with(func(e *Event) { e.StartsAt = start.Add(time.Hour) }), ""},
	}
	for _, tt := range tests {
		if got := ErrorCode(RefusedSubmit(read, tt.current, now)); got != tt.want {
			t.Errorf("%s: RefusedSubmit = %q, want %q", tt.name, got, tt.want)
		}
	}
}
