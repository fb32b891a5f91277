package domain

import (
	"slices"
	"testing"
	"time"
)

func TestPlanEventUpdate(t *testing.T) {
	start := time.Date(2030, 6, 15, 20, 0, 0, 0, time.UTC)
	before, after := start.Add(-time.Hour), start.Add(time.Hour)
	open := Event{ID: "2030-06-15-show", Name: "Show", StartsAt: start, Stored: StateUpcoming}
	broadcast := open
	broadcast.Stored = StateBroadcast
	scored := open
	scored.Stored = StateScored
	later, earlier, otherDay := start.Add(time.Hour), start.Add(-time.Hour), start.Add(24*time.Hour)
	up, bc, sc := StateUpcoming, StateBroadcast, StateScored

	tests := []struct {
		name     string
		ev       Event
		now      time.Time
		u        EventUpdate
		ok       bool
		start    *time.Time
		state    *EventState
		needOpen bool
	}{
		{"OpenLaterStart", open, before, EventUpdate{StartsAt: &later}, true, &later, nil, true},
		{"OpenEarlierStart", open, before, EventUpdate{StartsAt: &earlier}, true, &earlier, nil, true},
		{"OpenBroadcast", open, before, EventUpdate{State: &bc}, true, nil, &bc, false},
		{"OpenUpcomingIsANoOp", open, before, EventUpdate{State: &up}, true, nil, nil, false},
		{"OpenOtherDay", open, before, EventUpdate{StartsAt: &otherDay}, false, nil, nil, false},
		{"LockedByTimeLaterStart", open, after, EventUpdate{StartsAt: &later}, false, nil, nil, false},
		{"LockedByTimeEarlierStart", open, after, EventUpdate{StartsAt: &earlier}, true, &earlier, nil, false},
		{"LockedByTimeReopen", open, after, EventUpdate{State: &up}, false, nil, nil, false},
		{"LockedByTimeBroadcast", open, after, EventUpdate{State: &bc}, true, nil, &bc, false},
		{"BroadcastReopen", broadcast, before, EventUpdate{State: &up}, false, nil, nil, false},
		{"BroadcastLaterStart", broadcast, before, EventUpdate{StartsAt: &later}, false, nil, nil, false},
		{"BroadcastEarlierStart", broadcast, before, EventUpdate{StartsAt: &earlier}, true, &earlier, nil, false},
		{"BroadcastAgainIsANoOp", broadcast, before, EventUpdate{State: &bc}, true, nil, nil, false},
		{"ScoredState", scored, after, EventUpdate{State: &bc}, false, nil, nil, false},
		{"ScoredStart", scored, after, EventUpdate{StartsAt: &earlier}, false, nil, nil, false},
		{"SetScored", open, before, EventUpdate{State: &sc}, false, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := PlanEventUpdate(tt.ev, tt.u, tt.now)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil {
				if ErrorCode(err) != CodeBadUserInput {
					t.Fatalf("code %s", ErrorCode(err))
				}
				return
			}
			if !equalPtr(c.StartsAt, tt.start) || !equalPtr(c.State, tt.state) || c.RequireOpen != tt.needOpen {
				t.Fatalf("change %+v, want start %v state %v requireOpen %v", c, tt.start, tt.state, tt.needOpen)
			}
		})
	}

	t.Run("RenameAnyState", func(t *testing.T) {
		for _, ev := range []Event{open, broadcast, scored} {
			c, err := PlanEventUpdate(ev, EventUpdate{Name: ptr("  New Name ")}, after)
			if err != nil || c.Name == nil || *c.Name != "New Name" || c.Apply(ev).Name != "New Name" {
				t.Fatalf("%s: %+v %v", ev.Stored, c, err)
			}
		}
		if c, _ := PlanEventUpdate(open, EventUpdate{Name: ptr("Show")}, before); !c.Empty() {
			t.Fatalf("the same name is a change: %+v", c)
		}
	})
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func TestCheckCardEdit(t *testing.T) {
	start := time.Date(2030, 6, 15, 20, 0, 0, 0, time.UTC)
	ev := func(s EventState) Event { return Event{ID: "2030-06-15-show", StartsAt: start, Stored: s} }
	open, locked := start.Add(-time.Hour), start.Add(time.Hour)
	allowed := map[CardEdit][3]bool{ // UPCOMING, locked, SCORED
		EditAddMatch:     {true, true, false},
		EditRemoveMatch:  {true, true, false},
		EditReorder:      {true, true, false},
		EditMatchDetails: {true, true, true},
		EditMatchTeams:   {true, true, false},
		EditSetResult:    {false, true, true},
		EditClearResult:  {false, true, false},
	}
	for edit, want := range allowed {
		for i, c := range []struct {
			ev  Event
			now time.Time
		}{{ev(StateUpcoming), open}, {ev(StateUpcoming), locked}, {ev(StateScored), locked}} {
			if err := CheckCardEdit(c.ev, edit, c.now); (err == nil) != want[i] {
				t.Errorf("edit %d in state %s at %s: %v, want allowed=%v", edit, c.ev.Stored, c.now, err, want[i])
			}
		}
	}
}

func TestRescorePrediction(t *testing.T) {
	c := card()
	c[0].Result = &MatchResult{Outcome: OutcomeWin, Winner: ptr(0)}
	c[1].Result = &MatchResult{Outcome: OutcomeWin, Winner: ptr(1)}
	picks := []Pick{{MatchID: "m1", Team: 0}, {MatchID: "m2", Team: 2}}

	first := RescorePrediction(c, 3, picks, nil)
	if !first.Write || first.Delta != (StandingDelta{5, 1, 1}) || !slices.Equal(first.CorrectIDs, []string{"m1"}) {
		t.Fatalf("first score: %+v", first)
	}
	stored := &StoredScore{Points: 5, Correct: 1, CorrectIDs: []string{"m1"}, CardVersion: 3}
	if r := RescorePrediction(c, 3, picks, stored); r.Write || !r.Delta.Zero() {
		t.Fatalf("current prediction: %+v", r)
	}
	if r := RescorePrediction(c, 4, picks, stored); !r.Write || !r.Delta.Zero() {
		t.Fatalf("same score, newer card: %+v (must be written to record the card, standing untouched)", r)
	}
	if r := RescorePrediction(c, 2, picks, stored); !r.Newer || r.Write {
		t.Fatalf("older card than the stored score: %+v", r)
	}
	// A swap: same points and count, other correct picks.
	swapped := &StoredScore{Points: 5, Correct: 1, CorrectIDs: []string{"m9"}, CardVersion: 3}
	if r := RescorePrediction(c, 3, picks, swapped); !r.Write || !r.Delta.Zero() {
		t.Fatalf("other correct picks: %+v", r)
	}
	c[0].Result = &MatchResult{Outcome: OutcomeDraw}
	if r := RescorePrediction(c, 4, picks, stored); !r.Write || r.Delta != (StandingDelta{-5, -1, 0}) {
		t.Fatalf("correction: %+v", r)
	}
}

func TestApplyDeltaReportsDrift(t *testing.T) {
	s := Standing{Season: 2030, User: UserRef{ID: "u1"}, Points: 10, Correct: 1, EventsPlayed: 1}
	got, err := ApplyDelta(s, StandingDelta{Points: -10, Correct: -1})
	if err != nil || got.Points != 0 || got.Correct != 0 || got.EventsPlayed != 1 {
		t.Fatalf("to zero: %+v %v", got, err)
	}
	for _, d := range []StandingDelta{{Points: -11}, {Correct: -2}, {EventsPlayed: -2}} {
		if _, err := ApplyDelta(s, d); ErrorCode(err) != CodeInternal {
			t.Errorf("delta %+v: %v, want INTERNAL (drift), never clamped", d, err)
		}
	}
}
