package domain

import (
	"errors"
	"slices"
	"time"
)

// The game beyond one pick per match: method-of-victory picks, a joker, a perfect-card bonus
// and a tie-breaker question. Scoring is in scoring.go (ScorePick, ScoreEntry), the
// leaderboard's order and places in leaderboard.go.

// Limits of the game settings and entries.
const (
	MaxMethodPoints     = 1000      // a match's methodPoints
	MaxPerfectCardBonus = 1000      // an event's perfectCardBonus
	MaxTiebreakerLen    = 200       // the tie-breaker question (characters)
	MaxTiebreakerAnswer = 1_000_000 // answers and guesses are whole numbers 0..MaxTiebreakerAnswer
)

// VictoryMethod is how a WIN was won, or how a player predicts it is won.
type VictoryMethod string

// Victory methods.
const (
	MethodPinfall          VictoryMethod = "PINFALL"
	MethodSubmission       VictoryMethod = "SUBMISSION"
	MethodKnockout         VictoryMethod = "KNOCKOUT"
	MethodDisqualification VictoryMethod = "DISQUALIFICATION"
	MethodCountOut         VictoryMethod = "COUNT_OUT"
	MethodOther            VictoryMethod = "OTHER"
)

// VictoryMethods lists every victory method, in the schema's order.
func VictoryMethods() []VictoryMethod {
	return []VictoryMethod{MethodPinfall, MethodSubmission, MethodKnockout, MethodDisqualification, MethodCountOut, MethodOther}
}

// Valid reports whether m is one of the victory methods.
func (m VictoryMethod) Valid() bool { return slices.Contains(VictoryMethods(), m) }

// EventSettings are an event's game settings. The zero value is the plain game: one pick
// per match, worth the match's points or nothing.
type EventSettings struct {
	// Jokers: a player may mark one picked match as their joker: its points count double,
	// and a wrong winner costs its points (ScorePick).
	Jokers bool
	// PerfectCardBonus is added, on a final pass, to a prediction with every non-void match
	// right (0..MaxPerfectCardBonus).
	PerfectCardBonus int
	// Tiebreaker is the tie-breaker question (1..MaxTiebreakerLen characters, cleaned as
	// names are); nil: none.
	Tiebreaker *string
}

// Equal reports whether s and o are the same settings.
func (s EventSettings) Equal(o EventSettings) bool {
	return s.Jokers == o.Jokers && s.PerfectCardBonus == o.PerfectCardBonus && samePtr(s.Tiebreaker, o.Tiebreaker)
}

// CleanSettings checks settings and returns them cleaned (the question trimmed and
// normalised as names are). BAD_USER_INPUT names the field.
func CleanSettings(s EventSettings) (EventSettings, error) {
	if s.PerfectCardBonus < 0 || s.PerfectCardBonus > MaxPerfectCardBonus {
		return s, BadInput("perfectCardBonus must be between 0 and %d, got %d", MaxPerfectCardBonus, s.PerfectCardBonus)
	}
	if s.Tiebreaker != nil {
		q, err := CleanText("tiebreaker", *s.Tiebreaker, MaxTiebreakerLen)
		if err != nil {
			return s, err
		}
		s.Tiebreaker = &q
	}
	return s, nil
}

// TiebreakerAnswer is the answer to an event's tie-breaker question as set.
type TiebreakerAnswer struct {
	Value int
	// Version is the event's card version that setting it made (setting it is a card
	// edit). The answer counts once a scoring pass of this version or later completes.
	Version int
}

// CountedAnswer is the tie-breaker answer that orders the leaderboard: the answer set, once
// a scoring pass completed after it was set (ScoredVersion at or past the answer's
// Version); nil before that, when none is set, or when the event has no question. A
// changed or cleared answer stops counting at once; the new one counts after the next
// complete pass.
func (e Event) CountedAnswer() *int {
	if e.Settings.Tiebreaker == nil || e.Answer == nil || e.ScoredVersion < e.Answer.Version {
		return nil
	}
	v := e.Answer.Value
	return &v
}

// ExtraScoring reports whether ev's points use a rule beyond a match's points for a right
// winner: jokers on, a perfect-card bonus, or a match with method points. Scoring writes
// per-pick points and the perfect-card flag only for such an event (RescoreEntry); on any
// other, a pick's points are its match's points when correct and 0 otherwise, and the
// stored score is the plain one.
func (e Event) ExtraScoring() bool {
	if e.Settings.Jokers || e.Settings.PerfectCardBonus > 0 {
		return true
	}
	for _, m := range e.Matches {
		if m.MethodPoints > 0 {
			return true
		}
	}
	return false
}

// ValidTiebreakerValue returns BAD_USER_INPUT naming field unless v is 0..MaxTiebreakerAnswer.
func ValidTiebreakerValue(field string, v int) error {
	if v < 0 || v > MaxTiebreakerAnswer {
		return BadInput("%s must be a whole number from 0 to %d, got %d", field, MaxTiebreakerAnswer, v)
	}
	return nil
}

// PlanTiebreakerAnswer decides setTiebreakerAnswer(answer) on ev at now: it returns the
// answer to store (nil: cleared), its Version being the card version the edit makes
// (ev.CardVersion+1), and whether it changes anything (an answer set again to its value
// changes nothing: nothing to write). BAD_USER_INPUT when ev has no tie-breaker question,
// is not locked yet (CheckCardEdit, EditTiebreakerAnswer), or answer is outside
// 0..MaxTiebreakerAnswer. Setting or clearing it is a card edit: the card version moves.
func PlanTiebreakerAnswer(ev Event, answer *int, now time.Time) (next *TiebreakerAnswer, changed bool, err error) {
	if ev.Settings.Tiebreaker == nil {
		return nil, false, BadInput("event %q has no tie-breaker question: set one with updateEvent while it is UPCOMING", ev.ID)
	}
	if err := CheckCardEdit(ev, EditTiebreakerAnswer, now); err != nil {
		return nil, false, err
	}
	if answer == nil {
		return nil, ev.Answer != nil, nil
	}
	if err := ValidTiebreakerValue("answer", *answer); err != nil {
		return nil, false, err
	}
	if ev.Answer != nil && ev.Answer.Value == *answer {
		return ev.Answer, false, nil
	}
	return &TiebreakerAnswer{Value: *answer, Version: ev.CardVersion + 1}, true, nil
}

// Entry is what a player submits for an event: the picks, the joker (a picked match's id)
// and the tie-breaker guess. A submit replaces the whole entry.
type Entry struct {
	Picks      []Pick
	Joker      *string
	Tiebreaker *int
}

// CheckEntry checks what an entry can be checked for without the card (CheckPicks, known
// victory methods, a joker naming a picked match, a guess in range). The API calls it
// before reading anything; ValidateEntry checks the rest against the card.
func CheckEntry(e Entry) error {
	if err := CheckPicks(e.Picks); err != nil {
		return err
	}
	for _, p := range e.Picks {
		if p.Method != nil && !p.Method.Valid() {
			return BadInput("pick for match %q: unknown method %q", p.MatchID, truncate(string(*p.Method), 20))
		}
	}
	if e.Joker != nil && !slices.ContainsFunc(e.Picks, func(p Pick) bool { return p.MatchID == *e.Joker }) {
		return BadInput("joker %q is not a match picked in this prediction", truncate(*e.Joker, 40))
	}
	if e.Tiebreaker != nil {
		return ValidTiebreakerValue("tiebreaker", *e.Tiebreaker)
	}
	return nil
}

// ValidateEntry checks an entry against ev's card and settings and returns it cleaned
// (picks in card order, as ValidatePicks). BAD_USER_INPUT, besides ValidatePicks' and
// CheckEntry's refusals: a method on a match whose methodPoints is 0; a joker when ev has
// jokers off, or one that is not a match of the card with a pick in this entry; a guess
// when ev has no tie-breaker question. The submit path calls it with the card it read.
func ValidateEntry(ev Event, e Entry) (Entry, error) {
	if e.Joker != nil && !ev.Settings.Jokers {
		return Entry{}, BadInput("event %q does not play jokers: submit without one", ev.ID)
	}
	if e.Tiebreaker != nil && ev.Settings.Tiebreaker == nil {
		return Entry{}, BadInput("event %q has no tie-breaker question: submit without a guess", ev.ID)
	}
	if err := CheckEntry(e); err != nil {
		return Entry{}, err
	}
	picks, err := ValidatePicks(ev.Matches, e.Picks)
	if err != nil {
		return Entry{}, err
	}
	for _, p := range picks {
		if m, _ := ev.Match(p.MatchID); p.Method != nil && m.MethodPoints == 0 {
			return Entry{}, BadInput("pick for match %d %q: it offers no method pick (methodPoints 0), so it takes no method", m.Position, m.Name)
		}
	}
	return Entry{Picks: picks, Joker: e.Joker, Tiebreaker: e.Tiebreaker}, nil
}

// CleanCard checks and cleans a whole card as createEvent takes it (CleanMatch each, at
// most MaxMatches); a refusal names the match by its number and name.
func CleanCard(specs []MatchSpec) ([]MatchSpec, error) {
	if len(specs) > MaxMatches {
		return nil, BadInput("a card has at most %d matches, got %d", MaxMatches, len(specs))
	}
	out := make([]MatchSpec, len(specs))
	for i, ms := range specs {
		clean, err := CleanMatch(ms)
		if e := (*Error)(nil); errors.As(err, &e) {
			return nil, Errorf(e.Code, "match %d: %s", i+1, e.Message)
		} else if err != nil {
			return nil, err
		}
		out[i] = clean
	}
	return out, nil
}

// Apply returns the spec of m with u's changes: what updateMatch checks (CleanMatch) and
// writes. Fields u leaves nil keep m's values, methodPoints included.
func (u MatchUpdate) Apply(m Match) MatchSpec {
	spec := MatchSpec{Name: m.Name, Points: m.Points, MethodPoints: m.MethodPoints, Preshow: m.Preshow, Championships: m.Championships, Teams: m.Teams}
	if u.Name != nil {
		spec.Name = *u.Name
	}
	if u.Points != nil {
		spec.Points = *u.Points
	}
	if u.MethodPoints != nil {
		spec.MethodPoints = *u.MethodPoints
	}
	if u.Preshow != nil {
		spec.Preshow = *u.Preshow
	}
	if u.Championships != nil {
		spec.Championships = u.Championships
	}
	if u.Teams != nil {
		spec.Teams = u.Teams
	}
	return spec
}

// SameNewEvent reports whether existing, as the table holds it, is the event created
// would be (createEvent's repeat rule: an id taken by an event exactly as the input
// describes is that create, applied already): still UPCOMING at its first card version,
// with no tie-breaker answer, and the same name, start, settings and card (positions,
// names, points, method points, preshow, championships, teams, no results), match ids
// aside, which every create draws anew.
func SameNewEvent(existing, created Event) bool {
	if existing.Stored != StateUpcoming || existing.CardVersion != 1 || existing.Answer != nil ||
		existing.Name != created.Name || !existing.StartsAt.Equal(created.StartsAt) ||
		!existing.Settings.Equal(created.Settings) || len(existing.Matches) != len(created.Matches) {
		return false
	}
	for i, a := range existing.Matches {
		b := created.Matches[i]
		if a.Position != b.Position || a.Name != b.Name || a.Points != b.Points || a.MethodPoints != b.MethodPoints ||
			a.Preshow != b.Preshow || !slices.Equal(a.Championships, b.Championships) || a.Result != nil ||
			!slices.EqualFunc(a.Teams, b.Teams, sameTeam) {
			return false
		}
	}
	return true
}

func sameTeam(a, b Team) bool {
	return samePtr(a.Name, b.Name) && slices.Equal(a.Members, b.Members) && a.Champion == b.Champion
}

// samePtr reports whether a and b are both nil or point to equal values.
func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
