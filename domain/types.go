package domain

import "time"

// EventState is the state of an event as clients see it.
type EventState string

// Event states. UPCOMING accepts picks; BROADCAST is locked; SCORED has a leaderboard.
const (
	StateUpcoming  EventState = "UPCOMING"
	StateBroadcast EventState = "BROADCAST"
	StateScored    EventState = "SCORED"
)

// Outcome is how a match ended.
type Outcome string

// Outcomes. DRAW and NO_CONTEST void a match: nobody scores it.
const (
	OutcomeWin       Outcome = "WIN"
	OutcomeDraw      Outcome = "DRAW"
	OutcomeNoContest Outcome = "NO_CONTEST"
)

// Event is a wrestling event whose card players predict.
type Event struct {
	ID       string
	Name     string
	StartsAt time.Time
	// Stored is the state as stored; the state clients see is State(now).
	Stored EventState
	// CardVersion grows with every change to the card (matches, order, results, start).
	CardVersion int
	// Matches is the card in card order; nil when the event was read without its card
	// (event lists).
	Matches []Match
	// ScoredMatches is how many matches (with any result, voids included) the last complete
	// scoring pass counted; 0 before the first. It changes only when a pass completes.
	ScoredMatches int
	// ScoredVersion is the card version of the last complete scoring pass (0: none).
	ScoredVersion int
	// Settings are the event's game settings (jokers, perfect-card bonus, tie-breaker
	// question); the zero value plays one pick per match for the match's points.
	Settings EventSettings
	// Answer is the tie-breaker's answer as set (setTiebreakerAnswer); nil: none. It
	// counts once a scoring pass completes after it was set (CountedAnswer).
	Answer *TiebreakerAnswer
	// LiveVersion is the version of the event's last live message: it grows by one with
	// each commit that publishes one (a result set or cleared, a change of state, the
	// tie-breaker answer set or cleared, a scoring pass's completion); 0 before the first.
	LiveVersion int
}

// LeaderboardVisible reports whether the event has a leaderboard to show: once SCORED, or
// while BROADCAST once a live scoring pass has completed (provisional points and ranks).
func (e Event) LeaderboardVisible() bool { return e.Stored == StateScored || e.ScoredMatches > 0 }

// Season is the UTC year of the event's start.
func (e Event) Season() int { return e.StartsAt.UTC().Year() }

// State works out the state at now: stored SCORED stays SCORED; stored BROADCAST or a
// start in the past is BROADCAST; otherwise UPCOMING.
func (e Event) State(now time.Time) EventState {
	switch {
	case e.Stored == StateScored:
		return StateScored
	case e.Stored == StateBroadcast || !now.Before(e.StartsAt):
		return StateBroadcast
	default:
		return StateUpcoming
	}
}

// Locked reports whether picks are closed at now.
func (e Event) Locked(now time.Time) bool { return e.State(now) != StateUpcoming }

// Match returns the match with id, if it is on the card.
func (e Event) Match(id string) (Match, bool) {
	for _, m := range e.Matches {
		if m.ID == id {
			return m, true
		}
	}
	return Match{}, false
}

// Match is one match on an event card.
type Match struct {
	ID            string
	Position      int // 1-based card position
	Name          string
	Points        int
	MethodPoints  int // added for the right method of a WIN (ScorePick); 0: no method pick
	Preshow       bool
	Championships []string
	Teams         []Team
	Result        *MatchResult
	// PickCounts is how many predictions picked each team, in team order (voided matches
	// included), as counted by the last complete scoring pass since the event locked; nil
	// before it (and always while the event is open).
	PickCounts []int
}

// Team is one side of a match.
type Team struct {
	Name     *string
	Members  []string
	Champion bool
}

// MatchResult is the result of a match. Winner indexes Teams and is set only for WIN;
// Method, how the WIN was won, may be set only for WIN.
type MatchResult struct {
	Outcome Outcome
	Winner  *int
	Method  *VictoryMethod
}

// Void reports whether the result voids the match (nobody scores it).
func (r MatchResult) Void() bool { return r.Outcome != OutcomeWin }

// EventRef is the part of an event copied onto each prediction.
type EventRef struct {
	ID       string
	Name     string
	StartsAt time.Time
}

// UserRef is the part of a user copied onto predictions and standings.
type UserRef struct {
	ID   string
	Name string
}

// Pick is a player's predicted winner (team index) of one match, and optionally how the
// match is won.
type Pick struct {
	MatchID string
	Team    int
	// Method is the predicted method of victory; nil: none. Only a match with method
	// points takes one.
	Method *VictoryMethod
	// Correct is nil until the prediction is scored; false on a voided match.
	Correct *bool
	// Points is what the last scoring write gave the pick (ScorePick); nil before one.
	Points *int
}

// Prediction is one player's picks for one event.
type Prediction struct {
	EventID   string
	Event     EventRef
	User      UserRef
	Picks     []Pick
	Points    *int // nil until scored
	Correct   *int // nil until scored
	Rank      *int // set only where a leaderboard computed it
	UpdatedAt time.Time
	// Joker is the id of the match the player staked double on; nil: none.
	Joker *string
	// Tiebreaker is the player's guess at the tie-breaker question; nil: none.
	Tiebreaker *int
	// PerfectCard is set by a final scoring pass (every match resulted) of an event with
	// ExtraScoring: whether the player called every non-void match right (ScoreEntry).
	// nil before one.
	PerfectCard *bool
	// Place is the leaderboard place with the tie-breaker (Placer); set only where a
	// leaderboard computed it.
	Place *int
}

// Entry is what the player staked (picks, joker, guess).
func (p Prediction) Entry() Entry {
	return Entry{Picks: p.Picks, Joker: p.Joker, Tiebreaker: p.Tiebreaker}
}

// Scored reports whether the prediction has been scored.
func (p Prediction) Scored() bool { return p.Points != nil }

// PredictionIDSeparator joins a prediction's event and user ids in its id. Event, user,
// match and league ids never contain it, so a prediction id never equals another id.
const PredictionIDSeparator = "/"

// ID is the prediction's id for clients: <event id>/<user id>, stable for its lifetime.
func (p Prediction) ID() string { return p.EventID + PredictionIDSeparator + p.User.ID }

// Standing is a player's total in one season.
type Standing struct {
	Rank         *int // set only where a standings list computed it
	Season       int
	User         UserRef
	Points       int
	Correct      int
	EventsPlayed int
}

// User is a player profile.
type User struct {
	ID   string
	Name string
	// Standings, newest season first.
	Standings []Standing
}

// Page is one page of a list, with a cursor per item.
type Page[T any] struct {
	Items   []T
	Cursors []string
	HasNext bool
}

// EndCursor is the cursor of the last item, or "" for an empty page.
func (p Page[T]) EndCursor() string {
	if len(p.Cursors) == 0 {
		return ""
	}
	return p.Cursors[len(p.Cursors)-1]
}

// EventSpec is what createEvent takes.
type EventSpec struct {
	ID       *string // derived from the date and name when nil
	Name     string
	StartsAt time.Time
	Matches  []MatchSpec
	Settings EventSettings // checked by CleanSettings
}

// EventUpdate is what updateEvent takes; nil fields stay as they are.
type EventUpdate struct {
	Name     *string
	StartsAt *time.Time
	State    *EventState
	// The game settings (PlanEventUpdate: they change only while the event is UPCOMING).
	Jokers           *bool
	PerfectCardBonus *int
	Tiebreaker       *string // the question
	// ClearTiebreaker removes the question (an explicit null); with Tiebreaker set too it
	// is BAD_USER_INPUT.
	ClearTiebreaker bool
}

// MatchUpdate is what updateMatch takes; nil fields stay as they are.
type MatchUpdate struct {
	Name          *string
	Points        *int
	MethodPoints  *int
	Preshow       *bool
	Championships []string // nil: unchanged
	Teams         []Team   // nil: unchanged
}

// ScoreReport says what a scoring run did (or, in a dry run, would do).
type ScoreReport struct {
	EventID string
	DryRun  bool
	// PredictionsScored counts the predictions written (a dry run: that would be).
	PredictionsScored int
	// StandingsChanged counts the season standings written (a dry run: that would be).
	StandingsChanged int
	// Transactions counts the scoring transactions that succeeded (a dry run: needed).
	Transactions int
	// Complete: the pass is complete — every prediction reflects the current card (and, with
	// every result set, the event is SCORED); running scoring again would change nothing.
	// A run cut short by its time budget returns Complete false; calling it again
	// continues.
	Complete bool
	// ScoredMatches is the event's matches with a result (voids included) that the pass
	// counts: Event.ScoredMatches once the pass is complete.
	ScoredMatches int
	// Final: every match of the card has a result, so a complete pass makes the event
	// SCORED (otherwise it is live scoring: the event stays BROADCAST, points provisional).
	Final bool
	// Remaining is how many predictions still need a write for the current card when the
	// run returned: the event's predictions minus those written for its card version. 0
	// when Complete. A dry run reports the figure a real run starts from.
	Remaining int
}
