package domain

import (
	"strings"
	"testing"
	"time"
)

func TestVictoryMethods(t *testing.T) {
	for _, m := range VictoryMethods() {
		if !m.Valid() {
			t.Errorf("%s is not valid", m)
		}
	}
	if len(VictoryMethods()) != 6 {
		t.Errorf("%d methods, want PINFALL SUBMISSION KNOCKOUT DISQUALIFICATION COUNT_OUT OTHER", len(VictoryMethods()))
	}
	for _, m := range []VictoryMethod{"", "pinfall", "FORFEIT", "COUNT OUT"} {
		if m.Valid() {
			t.Errorf("%q is valid", m)
		}
	}
}

func TestCleanSettings(t *testing.T) {
	tests := []struct {
		name  string
		in    EventSettings
		ok    bool
		field string // in the refusal
		want  *string
	}{
		{"PlainGame", EventSettings{}, true, "", nil},
		{"Everything", EventSettings{Jokers: true, PerfectCardBonus: 25, Tiebreaker: ptr("  How many seconds will the main event last? ")}, true, "", ptr("How many seconds will the main event last?")},
		{"QuestionNormalised", EventSettings{Tiebreaker: ptr("Fe\u0301nix?")}, true, "", ptr("F\u00e9nix?")},
		{"BonusAtTheLimit", EventSettings{PerfectCardBonus: MaxPerfectCardBonus}, true, "", nil},
		{"BonusOverTheLimit", EventSettings{PerfectCardBonus: MaxPerfectCardBonus + 1}, false, "perfectCardBonus", nil},
		{"BonusNegative", EventSettings{PerfectCardBonus: -1}, false, "perfectCardBonus", nil},
		{"QuestionAtTheLimit", EventSettings{Tiebreaker: ptr(strings.Repeat("é", MaxTiebreakerLen))}, true, "", ptr(strings.Repeat("é", MaxTiebreakerLen))},
		{"QuestionTooLong", EventSettings{Tiebreaker: ptr(strings.Repeat("é", MaxTiebreakerLen+1))}, false, "tiebreaker", nil},
		{"QuestionBlank", EventSettings{Tiebreaker: ptr("   ")}, false, "tiebreaker", nil},
		{"QuestionInvisible", EventSettings{Tiebreaker: ptr("How\u202elong?")}, false, "tiebreaker", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CleanSettings(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil {
				if ErrorCode(err) != CodeBadUserInput || !strings.Contains(err.Error(), tt.field) {
					t.Fatalf("err = %v, want BAD_USER_INPUT naming %s", err, tt.field)
				}
				return
			}
			if !samePtr(got.Tiebreaker, tt.want) || got.Jokers != tt.in.Jokers || got.PerfectCardBonus != tt.in.PerfectCardBonus {
				t.Fatalf("cleaned %+v (question %v), want question %v", got, show(got.Tiebreaker), show(tt.want))
			}
		})
	}
}

func TestCleanMatchMethodPoints(t *testing.T) {
	for _, tt := range []struct {
		name         string
		methodPoints int
		ok           bool
	}{
		{"NoMethodPick", 0, true},
		{"SomeMethodPoints", 5, true},
		{"AtTheLimit", MaxMethodPoints, true},
		{"OverTheLimit", MaxMethodPoints + 1, false},
		{"Negative", -1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := CleanMatch(MatchSpec{Name: "x", Points: 10, MethodPoints: tt.methodPoints, Teams: twoTeams()})
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && (ErrorCode(err) != CodeBadUserInput || !strings.Contains(err.Error(), "methodPoints")) {
				t.Fatalf("err = %v, want BAD_USER_INPUT naming methodPoints", err)
			}
			if err == nil && m.MethodPoints != tt.methodPoints {
				t.Fatalf("methodPoints %d, want %d", m.MethodPoints, tt.methodPoints)
			}
		})
	}
}

func TestCleanCardNamesTheMatch(t *testing.T) {
	good := MatchSpec{Name: " Opener ", Points: 5, Teams: twoTeams()}
	out, err := CleanCard([]MatchSpec{good, good})
	if err != nil || len(out) != 2 || out[1].Name != "Opener" {
		t.Fatalf("CleanCard = %+v, %v", out, err)
	}
	_, err = CleanCard([]MatchSpec{good, {Name: "Main", Points: 5, MethodPoints: -3, Teams: twoTeams()}})
	if ErrorCode(err) != CodeBadUserInput || !strings.HasPrefix(err.(*Error).Message, "match 2: ") {
		t.Fatalf("err = %v, want BAD_USER_INPUT starting with match 2", err)
	}
	if _, err := CleanCard(make([]MatchSpec, MaxMatches+1)); ErrorCode(err) != CodeBadUserInput {
		t.Fatalf("a card of %d matches: %v", MaxMatches+1, err)
	}
}

func TestMatchUpdateApplyKeepsWhatItLeaves(t *testing.T) {
	m := Match{ID: "m1", Name: "Main", Points: 10, MethodPoints: 5, Preshow: true, Championships: []string{"Title"}, Teams: twoTeams()}
	if spec := (MatchUpdate{Name: ptr("Main Event")}).Apply(m); spec.MethodPoints != 5 || spec.Points != 10 || !spec.Preshow || spec.Name != "Main Event" || len(spec.Teams) != 2 || spec.Championships[0] != "Title" {
		t.Fatalf("rename: %+v", spec)
	}
	if spec := (MatchUpdate{MethodPoints: ptr(0), Points: ptr(3)}).Apply(m); spec.MethodPoints != 0 || spec.Points != 3 {
		t.Fatalf("points: %+v", spec)
	}
}

func TestValidateResultMethod(t *testing.T) {
	pin, bad := MethodPinfall, VictoryMethod("FORFEIT")
	tests := []struct {
		name string
		r    MatchResult
		ok   bool
	}{
		{"WinWithMethod", MatchResult{Outcome: OutcomeWin, Winner: ptr(0), Method: &pin}, true},
		{"WinWithoutMethod", MatchResult{Outcome: OutcomeWin, Winner: ptr(0)}, true},
		{"WinWithUnknownMethod", MatchResult{Outcome: OutcomeWin, Winner: ptr(0), Method: &bad}, false},
		{"MethodOnDraw", MatchResult{Outcome: OutcomeDraw, Method: &pin}, false},
		{"MethodOnNoContest", MatchResult{Outcome: OutcomeNoContest, Method: &pin}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateResult(tt.r, 2)
			if (err == nil) != tt.ok || (err != nil && ErrorCode(err) != CodeBadUserInput) {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

const (
	matchA = "00000000-0000-4000-8000-00000000000a"
	matchB = "00000000-0000-4000-8000-00000000000b"
	matchC = "00000000-0000-4000-8000-00000000000c"
)

// gameEvent is an open event with jokers, a question, and a match with method points (B).
func gameEvent() Event {
	return Event{ID: "2030-06-15-show", Settings: EventSettings{Jokers: true, PerfectCardBonus: 10, Tiebreaker: ptr("How long?")},
		Matches: []Match{
			{ID: matchA, Position: 1, Name: "Opener", Points: 5, Teams: twoTeams()},
			{ID: matchB, Position: 2, Name: "Main", Points: 20, MethodPoints: 10, Teams: twoTeams()},
		}}
}

func TestValidateEntry(t *testing.T) {
	pin, bad := MethodPinfall, VictoryMethod("FORFEIT")
	plain := gameEvent()
	plain.Settings = EventSettings{}
	picks := func(ps ...Pick) []Pick { return ps }
	tests := []struct {
		name  string
		ev    Event
		e     Entry
		ok    bool
		field string // in the refusal
	}{
		{"Everything", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchB, Team: 1, Method: &pin}, Pick{MatchID: matchA, Team: 0}), Joker: ptr(matchB), Tiebreaker: ptr(600)}, true, ""},
		{"PicksOnly", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchA, Team: 0})}, true, ""},
		{"GuessAtTheBounds", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchA, Team: 0}), Tiebreaker: ptr(MaxTiebreakerAnswer)}, true, ""},
		{"GuessZero", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchA, Team: 0}), Tiebreaker: ptr(0)}, true, ""},
		{"MethodWithoutMethodPoints", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchA, Team: 0, Method: &pin})}, false, "Opener"},
		{"UnknownMethod", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchB, Team: 0, Method: &bad})}, false, "method"},
		{"JokerWithJokersOff", plain, Entry{Picks: picks(Pick{MatchID: matchA, Team: 0}), Joker: ptr(matchA)}, false, "joker"},
		{"JokerNotPicked", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchA, Team: 0}), Joker: ptr(matchB)}, false, "joker"},
		{"JokerNotOnTheCard", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchA, Team: 0}), Joker: ptr(matchC)}, false, "joker"},
		{"JokerNotAMatchID", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchA, Team: 0}), Joker: ptr("EVENT#x")}, false, "joker"},
		{"GuessWithoutQuestion", plain, Entry{Picks: picks(Pick{MatchID: matchA, Team: 0}), Tiebreaker: ptr(600)}, false, "guess"},
		{"GuessNegative", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchA, Team: 0}), Tiebreaker: ptr(-1)}, false, "tiebreaker"},
		{"GuessTooHigh", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchA, Team: 0}), Tiebreaker: ptr(MaxTiebreakerAnswer + 1)}, false, "tiebreaker"},
		{"PickNotOnTheCard", gameEvent(), Entry{Picks: picks(Pick{MatchID: matchC, Team: 0})}, false, "card"},
		{"NoPicks", gameEvent(), Entry{Tiebreaker: ptr(5)}, false, "pick"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateEntry(tt.ev, tt.e)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil {
				if ErrorCode(err) != CodeBadUserInput || !strings.Contains(err.Error(), tt.field) {
					t.Fatalf("err = %v, want BAD_USER_INPUT naming %s", err, tt.field)
				}
				return
			}
			if len(got.Picks) != len(tt.e.Picks) || got.Picks[0].MatchID != matchA && len(got.Picks) > 1 {
				t.Fatalf("picks %+v, want them all in card order", got.Picks)
			}
			if !samePtr(got.Joker, tt.e.Joker) || !samePtr(got.Tiebreaker, tt.e.Tiebreaker) {
				t.Fatalf("joker %v guess %v, want them as submitted", show(got.Joker), show(got.Tiebreaker))
			}
			for _, p := range got.Picks {
				for _, in := range tt.e.Picks {
					if in.MatchID == p.MatchID && !samePtr(in.Method, p.Method) {
						t.Fatalf("pick %s: method %v, want %v", p.MatchID, show(p.Method), show(in.Method))
					}
				}
			}
			// What the API checks before reading the card passes too.
			if err := CheckEntry(tt.e); err != nil {
				t.Fatalf("CheckEntry refused what ValidateEntry takes: %v", err)
			}
		})
	}
}

func TestPlanTiebreakerAnswer(t *testing.T) {
	start := time.Date(2030, 6, 15, 20, 0, 0, 0, time.UTC)
	open, locked := start.Add(-time.Hour), start.Add(time.Hour)
	ev := func(stored EventState, answer *TiebreakerAnswer) Event {
		e := gameEvent()
		e.StartsAt, e.Stored, e.CardVersion, e.Answer = start, stored, 7, answer
		return e
	}
	noQuestion := ev(StateBroadcast, nil)
	noQuestion.Settings.Tiebreaker = nil
	set := &TiebreakerAnswer{Value: 600, Version: 5}
	tests := []struct {
		name    string
		ev      Event
		now     time.Time
		answer  *int
		ok      bool
		next    *TiebreakerAnswer
		changed bool
	}{
		{"SetOnceLocked", ev(StateUpcoming, nil), locked, ptr(600), true, &TiebreakerAnswer{Value: 600, Version: 8}, true},
		{"SetWhileBroadcast", ev(StateBroadcast, nil), open, ptr(0), true, &TiebreakerAnswer{Value: 0, Version: 8}, true},
		{"CorrectOnceScored", ev(StateScored, set), locked, ptr(MaxTiebreakerAnswer), true, &TiebreakerAnswer{Value: MaxTiebreakerAnswer, Version: 8}, true},
		{"SameAnswerChangesNothing", ev(StateBroadcast, set), locked, ptr(600), true, set, false},
		{"NullClears", ev(StateScored, set), locked, nil, true, nil, true},
		{"NullWithoutAnswerChangesNothing", ev(StateBroadcast, nil), locked, nil, true, nil, false},
		{"RefusedWithoutQuestion", noQuestion, locked, ptr(600), false, nil, false},
		{"RefusedWhileOpen", ev(StateUpcoming, nil), open, ptr(600), false, nil, false},
		{"RefusedNegative", ev(StateBroadcast, nil), locked, ptr(-1), false, nil, false},
		{"RefusedOverTheLimit", ev(StateBroadcast, nil), locked, ptr(MaxTiebreakerAnswer + 1), false, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, changed, err := PlanTiebreakerAnswer(tt.ev, tt.answer, tt.now)
			if (err == nil) != tt.ok || (err != nil && ErrorCode(err) != CodeBadUserInput) {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if !samePtr(next, tt.next) || changed != tt.changed {
				t.Fatalf("next %v changed %v, want %v %v", show(next), changed, show(tt.next), tt.changed)
			}
		})
	}
}

// TestCountedAnswer: the answer counts once a pass completes at or after the card version
// its setting made; not before, not without a question or an answer.
func TestCountedAnswer(t *testing.T) {
	ev := gameEvent()
	ev.Answer = &TiebreakerAnswer{Value: 600, Version: 8}
	for _, tt := range []struct {
		name   string
		scored int
		clear  bool
		noQ    bool
		want   *int
	}{
		{"NotBeforeAPassAfterIt", 7, false, false, nil},
		{"OnceAPassOfItsVersionCompleted", 8, false, false, ptr(600)},
		{"OnceALaterPassCompleted", 9, false, false, ptr(600)},
		{"NotWhenCleared", 9, true, false, nil},
		{"NotWithoutAQuestion", 9, false, true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := ev
			e.ScoredVersion = tt.scored
			if tt.clear {
				e.Answer = nil
			}
			if tt.noQ {
				e.Settings.Tiebreaker = nil
			}
			if got := e.CountedAnswer(); !samePtr(got, tt.want) {
				t.Fatalf("CountedAnswer = %v, want %v", show(got), show(tt.want))
			}
		})
	}
}

func TestExtraScoring(t *testing.T) {
	plain := gameEvent()
	plain.Settings = EventSettings{Tiebreaker: ptr("How long?")}
	plain.Matches[1].MethodPoints = 0
	for _, tt := range []struct {
		name string
		f    func(*Event)
		want bool
	}{
		{"PlainWithAQuestion", func(*Event) {}, false},
		{"Jokers", func(e *Event) { e.Settings.Jokers = true }, true},
		{"PerfectCardBonus", func(e *Event) { e.Settings.PerfectCardBonus = 1 }, true},
		{"MethodPoints", func(e *Event) { e.Matches[0].MethodPoints = 1 }, true},
	} {
		e := plain
		e.Matches = append([]Match(nil), plain.Matches...)
		tt.f(&e)
		if got := e.ExtraScoring(); got != tt.want {
			t.Errorf("%s: ExtraScoring = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPlanEventUpdateSettings: the game settings change only while UPCOMING (the whole
// update refused otherwise), are cleaned, and their change is a card edit.
func TestPlanEventUpdateSettings(t *testing.T) {
	start := time.Date(2030, 6, 15, 20, 0, 0, 0, time.UTC)
	open, locked := start.Add(-time.Hour), start.Add(time.Hour)
	ev := Event{ID: "2030-06-15-show", Name: "Show", StartsAt: start, Stored: StateUpcoming, CardVersion: 3,
		Settings: EventSettings{Tiebreaker: ptr("How long?")}}
	scored := ev
	scored.Stored = StateScored
	tests := []struct {
		name string
		ev   Event
		now  time.Time
		u    EventUpdate
		ok   bool
		want *EventSettings // nil: no settings change
	}{
		{"JokersOnWhileOpen", ev, open, EventUpdate{Jokers: ptr(true)}, true, &EventSettings{Jokers: true, Tiebreaker: ptr("How long?")}},
		{"BonusWhileOpen", ev, open, EventUpdate{PerfectCardBonus: ptr(25)}, true, &EventSettings{PerfectCardBonus: 25, Tiebreaker: ptr("How long?")}},
		{"QuestionCleaned", ev, open, EventUpdate{Tiebreaker: ptr(" Seconds? ")}, true, &EventSettings{Tiebreaker: ptr("Seconds?")}},
		{"QuestionCleared", ev, open, EventUpdate{ClearTiebreaker: true}, true, &EventSettings{}},
		{"SameSettingsChangeNothing", ev, open, EventUpdate{Jokers: ptr(false), Tiebreaker: ptr("How long?")}, true, nil},
		{"SameSettingsOnceLockedChangeNothing", ev, locked, EventUpdate{PerfectCardBonus: ptr(0)}, true, nil},
		{"RefusedOnceLocked", ev, locked, EventUpdate{Jokers: ptr(true)}, false, nil},
		{"RefusedWholeUpdateOnceLocked", ev, locked, EventUpdate{Name: ptr("Renamed"), PerfectCardBonus: ptr(5)}, false, nil},
		{"RefusedOnceScored", scored, locked, EventUpdate{ClearTiebreaker: true}, false, nil},
		{"RefusedBonusOverTheLimit", ev, open, EventUpdate{PerfectCardBonus: ptr(MaxPerfectCardBonus + 1)}, false, nil},
		{"RefusedBlankQuestion", ev, open, EventUpdate{Tiebreaker: ptr(" ")}, false, nil},
		{"RefusedQuestionAndClear", ev, open, EventUpdate{Tiebreaker: ptr("Q?"), ClearTiebreaker: true}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := PlanEventUpdate(tt.ev, tt.u, tt.now)
			if (err == nil) != tt.ok || (err != nil && ErrorCode(err) != CodeBadUserInput) {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil {
				if !c.Empty() {
					t.Fatalf("a refused update plans %+v", c)
				}
				return
			}
			if (c.Settings == nil) != (tt.want == nil) || (c.Settings != nil && !c.Settings.Equal(*tt.want)) {
				t.Fatalf("settings %+v, want %+v", c.Settings, tt.want)
			}
			after := c.Apply(tt.ev)
			if c.MovesCard() != (tt.want != nil) || c.RequireOpen != (tt.want != nil) || (after.CardVersion != tt.ev.CardVersion+1) != (tt.want == nil) {
				t.Fatalf("moves card %v, require open %v, card version %d → %d: a settings change is a card edit on an open event", c.MovesCard(), c.RequireOpen, tt.ev.CardVersion, after.CardVersion)
			}
			if tt.want != nil && (!after.Settings.Equal(*tt.want) || !strings.Contains(SummarizeEventChange(tt.ev, c), "→")) {
				t.Fatalf("applied settings %+v, summary %q", after.Settings, SummarizeEventChange(tt.ev, c))
			}
		})
	}
	t.Run("NameAloneIsNoCardEdit", func(t *testing.T) {
		c, err := PlanEventUpdate(ev, EventUpdate{Name: ptr("Renamed")}, locked)
		if err != nil || c.MovesCard() || c.Apply(ev).CardVersion != ev.CardVersion {
			t.Fatalf("%+v %v", c, err)
		}
	})
}

func TestCheckCardEditGameEdits(t *testing.T) {
	start := time.Date(2030, 6, 15, 20, 0, 0, 0, time.UTC)
	ev := func(s EventState) Event { return Event{ID: "2030-06-15-show", StartsAt: start, Stored: s} }
	open, locked := start.Add(-time.Hour), start.Add(time.Hour)
	for edit, want := range map[CardEdit][4]bool{ // UPCOMING, locked by time, BROADCAST, SCORED
		EditSettings:         {true, false, false, false},
		EditTiebreakerAnswer: {false, true, true, true},
	} {
		for i, c := range []struct {
			ev  Event
			now time.Time
		}{{ev(StateUpcoming), open}, {ev(StateUpcoming), locked}, {ev(StateBroadcast), open}, {ev(StateScored), locked}} {
			if err := CheckCardEdit(c.ev, edit, c.now); (err == nil) != want[i] {
				t.Errorf("edit %d, case %d: %v, want allowed=%v", edit, i, err, want[i])
			}
		}
	}
}

// TestSameNewEvent: createEvent's repeat rule compares the settings and method points too.
func TestSameNewEvent(t *testing.T) {
	start := time.Date(2030, 6, 15, 20, 0, 0, 0, time.UTC)
	created := gameEvent()
	created.Name, created.StartsAt, created.Stored, created.CardVersion = "Show", start, StateUpcoming, 1
	existing := created
	existing.Matches = append([]Match(nil), created.Matches...)
	for i := range existing.Matches {
		existing.Matches[i].ID = NewMatchID() // every create draws its own
	}
	if !SameNewEvent(existing, created) {
		t.Fatal("the same event with other match ids is not the same create")
	}
	for _, tt := range []struct {
		name string
		f    func(*Event)
	}{
		{"OtherJokers", func(e *Event) { e.Settings.Jokers = false }},
		{"OtherBonus", func(e *Event) { e.Settings.PerfectCardBonus = 11 }},
		{"OtherQuestion", func(e *Event) { e.Settings.Tiebreaker = ptr("How short?") }},
		{"NoQuestion", func(e *Event) { e.Settings.Tiebreaker = nil }},
		{"OtherMethodPoints", func(e *Event) { e.Matches[1].MethodPoints = 9 }},
		{"OtherPoints", func(e *Event) { e.Matches[1].Points = 9 }},
		{"OtherName", func(e *Event) { e.Name = "Other" }},
		{"OtherTeams", func(e *Event) { e.Matches[0].Teams = []Team{{Members: []string{"X"}}, {Members: []string{"B"}}} }},
		{"Edited", func(e *Event) { e.CardVersion = 2 }},
		{"Locked", func(e *Event) { e.Stored = StateBroadcast }},
		{"WithAResult", func(e *Event) { e.Matches[0].Result = win(0) }},
		{"WithAnAnswer", func(e *Event) { e.Answer = &TiebreakerAnswer{Value: 1, Version: 1} }},
		{"FewerMatches", func(e *Event) { e.Matches = e.Matches[:1] }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			other := existing
			other.Matches = append([]Match(nil), existing.Matches...)
			tt.f(&other)
			if SameNewEvent(other, created) {
				t.Fatal("taken for the same create")
			}
		})
	}
}

func TestGameSummaries(t *testing.T) {
	m := Match{Position: 2, Name: "Main", Points: 20, MethodPoints: 10, Teams: twoTeams()}
	for _, tt := range []struct{ name, got, want string }{
		{"MatchWithMethodPoints", SummarizeMatch("added", m), `added match 2 "Main" (20 points, 10 for the method): A vs B`},
		{"MethodPointsChanged", SummarizeMatchUpdate(m, Match{Position: 2, Name: "Main", Points: 20, MethodPoints: 0, Teams: twoTeams()}), `match 2 "Main": methodPoints 10 → 0`},
		{"ResultWithMethod", ResultLabel(m, win(1, MethodCountOut)), "WIN by COUNT_OUT, team 1 (B)"},
		{"ResultWithoutMethod", ResultLabel(m, win(1)), "WIN, team 1 (B)"},
		{"AnswerSet", SummarizeTiebreakerAnswer(Event{}, &TiebreakerAnswer{Value: 600}), "tie-breaker answer none → 600"},
		{"AnswerCleared", SummarizeTiebreakerAnswer(Event{Answer: &TiebreakerAnswer{Value: 600}}, nil), "tie-breaker answer 600 → none"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
