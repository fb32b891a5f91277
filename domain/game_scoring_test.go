package domain

import (
	"slices"
	"testing"
)

// Cards for the scoring rules: match ids m1, m2, …; results by win, void and none.
func win(team int, method ...VictoryMethod) *MatchResult {
	r := &MatchResult{Outcome: OutcomeWin, Winner: ptr(team)}
	if len(method) > 0 {
		r.Method = &method[0]
	}
	return r
}

var (
	noContest = &MatchResult{Outcome: OutcomeNoContest}
	draw      = &MatchResult{Outcome: OutcomeDraw}
)

func scoringMatch(id string, points, methodPoints int, r *MatchResult) Match {
	return Match{ID: id, Name: id, Points: points, MethodPoints: methodPoints, Teams: twoTeams(), Result: r}
}

func pick(match string, team int, method ...VictoryMethod) Pick {
	p := Pick{MatchID: match, Team: team}
	if len(method) > 0 {
		p.Method = &method[0]
	}
	return p
}

// TestScoreEntry covers every line of the scoring rules: one pick (winner, method, joker,
// void, no result, removed match), the joker's setting when scored, the perfect card, the
// clamp at 0 and correct; the worked example of docs/api.md and its variant.
func TestScoreEntry(t *testing.T) {
	jokers := EventSettings{Jokers: true}
	tests := []struct {
		name     string
		settings EventSettings
		card     []Match
		entry    Entry
		points   int
		correct  int
		picks    []int  // each pick's points
		perfect  *bool  // nil: not a final pass
		rights   []bool // each pick's Correct; nil: picks[i] > 0
	}{
		{"RightWinnerEarnsPoints", EventSettings{}, []Match{scoringMatch("m1", 10, 0, win(0))},
			Entry{Picks: []Pick{pick("m1", 0)}}, 10, 1, []int{10}, ptr(true), nil},
		{"WrongWinnerEarnsNothing", EventSettings{}, []Match{scoringMatch("m1", 10, 0, win(1))},
			Entry{Picks: []Pick{pick("m1", 0)}}, 0, 0, []int{0}, ptr(false), nil},
		{"MethodRightAddsMethodPoints", EventSettings{}, []Match{scoringMatch("m1", 10, 5, win(0, MethodPinfall))},
			Entry{Picks: []Pick{pick("m1", 0, MethodPinfall)}}, 15, 1, []int{15}, ptr(true), nil},
		{"MethodWrongAddsNothing", EventSettings{}, []Match{scoringMatch("m1", 10, 5, win(0, MethodPinfall))},
			Entry{Picks: []Pick{pick("m1", 0, MethodSubmission)}}, 10, 1, []int{10}, ptr(true), nil},
		{"MethodUnsetAddsNothing", EventSettings{}, []Match{scoringMatch("m1", 10, 5, win(0, MethodPinfall))},
			Entry{Picks: []Pick{pick("m1", 0)}}, 10, 1, []int{10}, ptr(true), nil},
		{"ResultWithoutMethodAddsNothing", EventSettings{}, []Match{scoringMatch("m1", 10, 5, win(0))},
			Entry{Picks: []Pick{pick("m1", 0, MethodPinfall)}}, 10, 1, []int{10}, ptr(true), nil},
		{"NoMethodPickOnMatchWithoutMethodPoints", EventSettings{}, []Match{scoringMatch("m1", 10, 0, win(0, MethodPinfall))},
			Entry{Picks: []Pick{pick("m1", 0, MethodPinfall)}}, 10, 1, []int{10}, ptr(true), nil},
		{"MethodRightWinnerWrongEarnsNothing", EventSettings{}, []Match{scoringMatch("m1", 10, 5, win(1, MethodPinfall))},
			Entry{Picks: []Pick{pick("m1", 0, MethodPinfall)}}, 0, 0, []int{0}, ptr(false), nil},
		{"JokerRightDoubles", jokers, []Match{scoringMatch("m1", 10, 0, win(0))},
			Entry{Picks: []Pick{pick("m1", 0)}, Joker: ptr("m1")}, 20, 1, []int{20}, ptr(true), nil},
		{"JokerDoublesMethodPoints", jokers, []Match{scoringMatch("m1", 10, 5, win(0, MethodKnockout))},
			Entry{Picks: []Pick{pick("m1", 0, MethodKnockout)}, Joker: ptr("m1")}, 30, 1, []int{30}, ptr(true), nil},
		{"JokerWrongLosesStake", jokers, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, win(0))},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 1)}, Joker: ptr("m2")}, 0, 1, []int{10, -20}, ptr(false), nil},
		{"MethodPointsNeverLost", jokers, []Match{scoringMatch("m1", 30, 0, win(0)), scoringMatch("m2", 10, 5, win(1, MethodPinfall))},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 0, MethodPinfall)}, Joker: ptr("m2")}, 20, 1, []int{30, -10}, ptr(false), nil},
		{"JokerOnVoidMatchEarnsNothing", jokers, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, noContest)},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 1)}, Joker: ptr("m2")}, 10, 1, []int{10, 0}, ptr(true), nil},
		{"JokerOnDrawEarnsNothing", jokers, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, draw)},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 1)}, Joker: ptr("m2")}, 10, 1, []int{10, 0}, ptr(true), nil},
		{"JokerOnRemovedMatchEarnsNothing", jokers, []Match{scoringMatch("m1", 10, 0, win(0))},
			Entry{Picks: []Pick{pick("m1", 0), pick("gone", 1)}, Joker: ptr("gone")}, 10, 1, []int{10, 0}, ptr(true), nil},
		{"ReteamedMatchEarnsNothing", jokers, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2-new-id", 20, 0, win(0))},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 0)}, Joker: ptr("m2")}, 10, 1, []int{10, 0}, ptr(false), nil},
		{"NoResultYetEarnsNothing", jokers, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, nil)},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 1)}, Joker: ptr("m2")}, 10, 1, []int{10, 0}, nil, nil},
		{"JokerOffWhenScored", EventSettings{}, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, win(1))},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 0)}, Joker: ptr("m1")}, 10, 1, []int{10, 0}, ptr(false), nil},
		{"JokerOffWhenScoredCostsNothing", EventSettings{}, []Match{scoringMatch("m1", 10, 0, win(1))},
			Entry{Picks: []Pick{pick("m1", 0)}, Joker: ptr("m1")}, 0, 0, []int{0}, ptr(false), nil},
		{"TotalClampedAtZero", jokers, []Match{scoringMatch("m1", 5, 0, win(0)), scoringMatch("m2", 30, 0, win(0))},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 1)}, Joker: ptr("m2")}, 0, 1, []int{5, -30}, ptr(false), nil},
		{"TotalClampedAtZeroWhileLive", jokers, []Match{scoringMatch("m1", 5, 0, nil), scoringMatch("m2", 30, 0, win(0))},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 1)}, Joker: ptr("m2")}, 0, 0, []int{0, -30}, nil, nil},
		{"PerfectCardAddsBonus", EventSettings{PerfectCardBonus: 25}, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, win(1))},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 1)}}, 55, 2, []int{10, 20}, ptr(true), nil},
		{"PerfectCardWithoutBonusAddsNothing", EventSettings{}, []Match{scoringMatch("m1", 10, 0, win(0))},
			Entry{Picks: []Pick{pick("m1", 0)}}, 10, 1, []int{10}, ptr(true), nil},
		{"PerfectCardNeedsEveryNonVoidMatchCorrect", EventSettings{PerfectCardBonus: 25}, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, win(1))},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 0)}}, 10, 1, []int{10, 0}, ptr(false), nil},
		{"PerfectCardNeedsAPickOnEveryNonVoidMatch", EventSettings{PerfectCardBonus: 25}, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, win(1))},
			Entry{Picks: []Pick{pick("m1", 0)}}, 10, 1, []int{10}, ptr(false), nil},
		{"PerfectCardSkipsVoidMatches", EventSettings{PerfectCardBonus: 25}, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, draw)},
			Entry{Picks: []Pick{pick("m1", 0)}}, 35, 1, []int{10}, ptr(true), nil},
		{"PerfectCardNeedsANonVoidMatch", EventSettings{PerfectCardBonus: 25}, []Match{scoringMatch("m1", 10, 0, draw), scoringMatch("m2", 20, 0, noContest)},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 1)}}, 0, 0, []int{0, 0}, ptr(false), nil},
		{"PerfectCardIgnoresMethod", EventSettings{PerfectCardBonus: 25}, []Match{scoringMatch("m1", 10, 5, win(0, MethodPinfall))},
			Entry{Picks: []Pick{pick("m1", 0, MethodSubmission)}}, 35, 1, []int{10}, ptr(true), nil},
		{"MatchAddedAfterSubmitBlocksPerfectCard", EventSettings{PerfectCardBonus: 25}, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("added", 20, 0, win(1))},
			Entry{Picks: []Pick{pick("m1", 0)}}, 10, 1, []int{10}, ptr(false), nil},
		{"PerfectCardUnknownWhileLive", EventSettings{PerfectCardBonus: 25}, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, nil)},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 1)}}, 10, 1, []int{10, 0}, nil, nil},
		{"PerfectCardBonusWithLostJoker", EventSettings{Jokers: true, PerfectCardBonus: 25}, []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, draw)},
			Entry{Picks: []Pick{pick("m1", 0), pick("m2", 0)}, Joker: ptr("m2")}, 35, 1, []int{10, 0}, ptr(true), nil},
		{"CorrectIgnoresMethod", EventSettings{}, []Match{scoringMatch("m1", 10, 5, win(0, MethodPinfall)), scoringMatch("m2", 10, 5, win(0, MethodPinfall))},
			Entry{Picks: []Pick{pick("m1", 0, MethodPinfall), pick("m2", 0, MethodOther)}}, 25, 2, []int{15, 10}, ptr(true), nil},
		{
			// Jokers on, bonus 25. M1 10 (+5 method), M2 20, M3 30; picks M1 team 0 PINFALL,
			// M2 team 1 (joker), M3 team 0; results M1 team 0 by PINFALL, M2 team 1, M3
			// NO_CONTEST: 15 + 40 + 0 + 25 = 80, correct 2.
			"WorkedExample", EventSettings{Jokers: true, PerfectCardBonus: 25}, workedExampleCard(win(1)),
			workedExampleEntry(), 80, 2, []int{15, 40, 0}, ptr(true), []bool{true, true, false},
		},
		{
			// M2 won by team 0: 15 − 20 = −5 → 0, correct 1, no bonus.
			"WorkedExampleJokerLost", EventSettings{Jokers: true, PerfectCardBonus: 25}, workedExampleCard(win(0)),
			workedExampleEntry(), 0, 1, []int{15, -20, 0}, ptr(false), []bool{true, false, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScoreEntry(Event{Matches: tt.card, Settings: tt.settings}, tt.entry)
			if s.Points != tt.points || s.Correct != tt.correct {
				t.Errorf("points %d correct %d, want %d and %d", s.Points, s.Correct, tt.points, tt.correct)
			}
			if !samePtr(s.PerfectCard, tt.perfect) {
				t.Errorf("perfect card %v, want %v", show(s.PerfectCard), show(tt.perfect))
			}
			if len(s.Picks) != len(tt.entry.Picks) {
				t.Fatalf("%d picks scored, want %d", len(s.Picks), len(tt.entry.Picks))
			}
			for i, p := range s.Picks {
				right := tt.picks[i] > 0
				if tt.rights != nil {
					right = tt.rights[i]
				}
				if p.MatchID != tt.entry.Picks[i].MatchID || p.Points == nil || *p.Points != tt.picks[i] || p.Correct == nil || *p.Correct != right {
					t.Errorf("pick %d (%s): points %v correct %v, want %d and %v", i, p.MatchID, show(p.Points), show(p.Correct), tt.picks[i], right)
				}
			}
		})
	}
}

func workedExampleCard(m2 *MatchResult) []Match {
	return []Match{
		scoringMatch("M1", 10, 5, win(0, MethodPinfall)),
		scoringMatch("M2", 20, 0, m2),
		scoringMatch("M3", 30, 0, noContest),
	}
}

func workedExampleEntry() Entry {
	return Entry{Picks: []Pick{pick("M1", 0, MethodPinfall), pick("M2", 1), pick("M3", 0)}, Joker: ptr("M2")}
}

func show[T any](p *T) any {
	if p == nil {
		return "nil"
	}
	return *p
}

// TestScorePicksPlainEventAsBefore: an event that uses none of the game's settings scores
// as one pick per match always did: a correct pick earns the match's points, the total is
// their sum, and ScorePicks is ScoreEntry of such an event.
func TestScorePicksPlainEventAsBefore(t *testing.T) {
	results := []*MatchResult{nil, win(0), win(1), draw, noContest}
	card := make([]Match, len(results))
	for i, r := range results {
		card[i] = scoringMatch(string(rune('a'+i)), 3*(i+1), 0, r)
	}
	for team := range 2 {
		var picks []Pick
		want, correct := 0, 0
		for i, m := range card {
			picks = append(picks, pick(m.ID, (team+i)%2))
			if m.Result != nil && !m.Result.Void() && *m.Result.Winner == (team+i)%2 {
				want += m.Points
				correct++
			}
		}
		picks = append(picks, pick("gone", 0))
		s := ScorePicks(card, picks)
		if s.Points != want || s.Correct != correct {
			t.Errorf("team offset %d: %d points %d correct, want %d and %d", team, s.Points, s.Correct, want, correct)
		}
		e := ScoreEntry(Event{Matches: card}, Entry{Picks: picks})
		if e.Points != s.Points || e.Correct != s.Correct || e.PerfectCard != nil {
			t.Errorf("ScoreEntry %+v differs from ScorePicks %+v (or decided a perfect card while live)", e, s)
		}
	}
}

// TestRescoreEntry: what a pass writes for one prediction, and when it need not write.
func TestRescoreEntry(t *testing.T) {
	ev := Event{CardVersion: 4, Settings: EventSettings{Jokers: true, PerfectCardBonus: 25}, Matches: workedExampleCard(win(1))}
	entry := workedExampleEntry()
	current := StoredScore{Points: 80, Correct: 2, CorrectIDs: []string{"M1", "M2"}, CardVersion: 4, PickPoints: []int{15, 40, 0}, PerfectCard: ptr(true)}
	plain := Event{CardVersion: 4, Matches: []Match{scoringMatch("m1", 10, 0, win(0)), scoringMatch("m2", 20, 0, win(1))}}
	plainEntry := Entry{Picks: []Pick{pick("m1", 0), pick("m2", 0)}}
	plainStored := StoredScore{Points: 10, Correct: 1, CorrectIDs: []string{"m1"}, CardVersion: 4}
	with := func(s StoredScore, f func(*StoredScore)) *StoredScore { f(&s); return &s }

	tests := []struct {
		name   string
		ev     Event
		entry  Entry
		stored *StoredScore
		write  bool
		delta  StandingDelta
		newer  bool
	}{
		{"FirstScoreWritesAndCountsAnEvent", ev, entry, nil, true, StandingDelta{Points: 80, Correct: 2, EventsPlayed: 1}, false},
		{"CurrentWritesNothing", ev, entry, &current, false, StandingDelta{}, false},
		{"NewerCardRewritesStandingUntouched", ev, entry, with(current, func(s *StoredScore) { s.CardVersion = 3 }), true, StandingDelta{}, false},
		{"OlderCardThanStoredRefused", ev, entry, with(current, func(s *StoredScore) { s.CardVersion = 5 }), false, StandingDelta{}, true},
		{"PickPointsMovedRewrites", ev, entry, with(current, func(s *StoredScore) { s.PickPoints = []int{40, 15, 0} }), true, StandingDelta{}, false},
		{"PickPointsMissingRewrites", ev, entry, with(current, func(s *StoredScore) { s.PickPoints = nil }), true, StandingDelta{}, false},
		{"PerfectCardFlagRewrites", ev, entry, with(current, func(s *StoredScore) { s.PerfectCard = nil }), true, StandingDelta{}, false},
		{"CorrectPicksSwappedRewrites", ev, entry, with(current, func(s *StoredScore) { s.CorrectIDs = []string{"M1", "M3"} }), true, StandingDelta{}, false},
		{"DeltaIsNewMinusOldClampedPoints", withResult(ev, 1, win(0)), entry, &current, true, StandingDelta{Points: -80, Correct: -1}, false},
		{"PlainEventStoresAsBefore", plain, plainEntry, &plainStored, false, StandingDelta{}, false},
		{"PlainEventDropsStoredPickPoints", plain, plainEntry, with(plainStored, func(s *StoredScore) { s.PickPoints = []int{10, 0} }), true, StandingDelta{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := RescoreEntry(tt.ev, tt.entry, tt.stored)
			if r.Write != tt.write || r.Delta != tt.delta || r.Newer != tt.newer {
				t.Fatalf("write %v delta %+v newer %v, want %v %+v %v", r.Write, r.Delta, r.Newer, tt.write, tt.delta, tt.newer)
			}
			if r.Newer {
				return
			}
			if r.Next.Points != r.Score.Points || r.Next.Correct != r.Score.Correct || r.Next.CardVersion != tt.ev.CardVersion || !slices.Equal(r.Next.CorrectIDs, r.CorrectIDs) {
				t.Errorf("next %+v does not hold the score %+v", r.Next, r.Score)
			}
			extra := tt.ev.ExtraScoring()
			if (r.Next.PickPoints != nil) != extra || (r.Next.PerfectCard != nil) != (extra && r.Score.PerfectCard != nil) {
				t.Errorf("next %+v: pick points and perfect card stored %v, want only on an event with extra scoring (%v)", r.Next, r.Next.PickPoints != nil, extra)
			}
			if r.Write {
				// After the write, the same pass finds nothing to write.
				if again := RescoreEntry(tt.ev, tt.entry, &r.Next); again.Write || !again.Delta.Zero() {
					t.Errorf("the written score is not current: %+v", again)
				}
			}
		})
	}
}

func withResult(ev Event, i int, r *MatchResult) Event {
	ev.Matches = slices.Clone(ev.Matches)
	ev.Matches[i].Result = r
	return ev
}

// TestRescorePredictionIsPlainRescoreEntry: the picks-only form is RescoreEntry of an event
// with that card and version and no settings.
func TestRescorePredictionIsPlainRescoreEntry(t *testing.T) {
	c := card()
	c[0].Result = win(0)
	picks := []Pick{{MatchID: "m1", Team: 0}, {MatchID: "m2", Team: 1}}
	got := RescorePrediction(c, 7, picks, nil)
	want := RescoreEntry(Event{Matches: c, CardVersion: 7}, Entry{Picks: picks}, nil)
	if got.Write != want.Write || got.Delta != want.Delta || !got.Next.Equal(want.Next) || got.Next.PickPoints != nil {
		t.Fatalf("RescorePrediction %+v, RescoreEntry %+v", got, want)
	}
}
