package domain

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// Score is what one prediction earns.
type Score struct {
	// Points is max(0, the sum of the picks' points + the perfect-card bonus when
	// PerfectCard): a prediction never scores below 0.
	Points int
	// Correct counts the picks with the right winner (the method plays no part).
	Correct int
	// Picks carries the prediction's picks with Correct and Points set.
	Picks []Pick
	// PerfectCard is set on a final pass only (every match of the card has a result): true
	// when the card has at least one non-void match and the prediction has a correct pick
	// on every one of them. nil on a live pass.
	PerfectCard *bool
}

// ScorePick scores pick p on match m (nil: m is no longer on the card, or was re-teamed
// and has a new id), joker saying whether p's match is the prediction's joker and the
// event allows jokers when scored:
//   - m nil, m without a result yet (not counted while live), or a void result (DRAW,
//     NO_CONTEST): 0, joker or not, and not correct;
//   - a WIN with p's team the winner: m's points, plus m's method points when m offers a
//     method pick (methodPoints > 0), the result has a method and p's method equals it;
//     the whole doubled for the joker. Correct;
//   - a WIN with another winner: 0, or −m's points for the joker (the stake is lost; method
//     points are never lost). Not correct.
func ScorePick(m *Match, p Pick, joker bool) (points int, correct bool) {
	if m == nil || m.Result == nil || m.Result.Void() || m.Result.Winner == nil {
		return 0, false
	}
	if *m.Result.Winner != p.Team {
		if joker {
			return -m.Points, false
		}
		return 0, false
	}
	points = m.Points
	if m.MethodPoints > 0 && m.Result.Method != nil && p.Method != nil && *p.Method == *m.Result.Method {
		points += m.MethodPoints
	}
	if joker {
		points *= 2
	}
	return points, true
}

// ScoreEntry scores an entry against ev's card (ev.Matches; matches without a result count
// nothing yet) and settings: each pick by ScorePick, the joker counting only while
// ev.Settings.Jokers is on; on a final pass (every match resulted) the perfect card is
// decided and, when reached, ev.Settings.PerfectCardBonus added; the total is clamped at 0.
func ScoreEntry(ev Event, e Entry) Score {
	byID := make(map[string]*Match, len(ev.Matches))
	for i := range ev.Matches {
		byID[ev.Matches[i].ID] = &ev.Matches[i]
	}
	joker := ""
	if ev.Settings.Jokers && e.Joker != nil {
		joker = *e.Joker
	}
	s := Score{Picks: make([]Pick, len(e.Picks))}
	sum := 0
	right := make(map[string]bool, len(e.Picks))
	for i, p := range e.Picks {
		points, ok := ScorePick(byID[p.MatchID], p, joker != "" && p.MatchID == joker)
		sum += points
		if ok {
			s.Correct++
			right[p.MatchID] = true
		}
		p.Correct, p.Points = &ok, &points
		s.Picks[i] = p
	}
	if len(MissingResults(ev.Matches)) == 0 {
		perfect := perfectCard(ev.Matches, right)
		s.PerfectCard = &perfect
		if perfect {
			sum += ev.Settings.PerfectCardBonus
		}
	}
	s.Points = max(0, sum)
	return s
}

// perfectCard reports whether right (the ids of the matches picked right) holds every
// non-void match of card, of which there is at least one.
func perfectCard(card []Match, right map[string]bool) bool {
	nonVoid := 0
	for _, m := range card {
		if m.Result == nil || m.Result.Void() {
			continue
		}
		nonVoid++
		if !right[m.ID] {
			return false
		}
	}
	return nonVoid > 0
}

// ScorePicks scores picks against a card under the plain settings (no joker, no bonus):
// ScoreEntry of an event with that card. A correct pick earns the match's points (and its
// method points for the right method); a voided match (DRAW, NO_CONTEST), a match without
// a result yet (live scoring: provisional points) and a pick on a match no longer on the
// card earn nothing and are not correct.
func ScorePicks(card []Match, picks []Pick) Score {
	return ScoreEntry(Event{Matches: card}, Entry{Picks: picks})
}

// MissingResults returns the names of matches on the card without a result.
func MissingResults(card []Match) []string {
	var missing []string
	for _, m := range card {
		if m.Result == nil {
			missing = append(missing, m.Name)
		}
	}
	return missing
}

// CompareStandings orders a ranked list: most points first, ties by user id ascending (the
// order of the index's SCORE#<inverted points>#<user id> keys). It returns a negative number
// when a comes before b, zero when they are the same player's, positive otherwise.
func CompareStandings(aPoints int, aUser string, bPoints int, bUser string) int {
	if aPoints != bPoints {
		return bPoints - aPoints
	}
	return strings.Compare(aUser, bUser)
}

// Ranker assigns competition ranks (1, 2, 2, 4) to rows given highest points first. The
// zero value starts a list; a Ranker restored from a cursor continues one.
type Ranker struct {
	Index  int // rows seen so far
	Rank   int // rank of the last row
	Points int // points of the last row
}

// Next returns the rank of the next row, which has points.
func (r *Ranker) Next(points int) int {
	r.Index++
	if r.Index == 1 || points != r.Points {
		r.Rank = r.Index
	}
	r.Points = points
	return r.Rank
}

// RankTable gives the same competition ranks as Ranker from how many players hold each
// total: a player's rank is 1 + the players with more points. The zero value is empty.
type RankTable struct {
	points []int // totals held, high to low
	more   []int // players with more than points[i]
	total  int
}

// Add adds n > 0 players with points, which must be lower than every total added before; it
// reports false, adding nothing, otherwise.
func (t *RankTable) Add(points, n int) bool {
	if n <= 0 || (len(t.points) > 0 && points >= t.points[len(t.points)-1]) {
		return false
	}
	t.points = append(t.points, points)
	t.more = append(t.more, t.total)
	t.total += n
	return true
}

// Rank is the rank of a player with points. Points the table does not hold (a total written
// after the table was) rank among the totals it holds.
func (t *RankTable) Rank(points int) int {
	i := sort.Search(len(t.points), func(i int) bool { return t.points[i] <= points })
	if i < len(t.points) {
		return t.more[i] + 1
	}
	return t.total + 1
}

// ResultedMatches counts the matches on the card with a result (voids included).
func ResultedMatches(card []Match) int {
	n := 0
	for _, m := range card {
		if m.Result != nil {
			n++
		}
	}
	return n
}

// CheckScorable returns BAD_USER_INPUT unless ev can be scored at now: locked, with at
// least one match and at least one result. With every result set the pass is final (the
// event becomes SCORED); with some, it is live scoring: the resulted matches count,
// provisionally, and the event stays BROADCAST. scoredBefore says that predictions of ev
// already carry points of an earlier pass (complete or not): then a card whose results
// were all cleared is scored too, and that pass takes those provisional points back.
func CheckScorable(ev Event, now time.Time, scoredBefore bool) error {
	if !ev.Locked(now) {
		return BadInput("event %q is still open for picks: it locks at %s or with updateEvent(state: BROADCAST)", ev.ID, ev.StartsAt.UTC().Format(time.RFC3339))
	}
	if len(ev.Matches) == 0 {
		return BadInput("event %q has no matches", ev.ID)
	}
	if ResultedMatches(ev.Matches) == 0 && !scoredBefore {
		return BadInput("event %q has no result yet: set at least one (setResult) before scoring; no result for %s", ev.ID, strings.Join(MissingResults(ev.Matches), ", "))
	}
	return nil
}

// StoredScore is what scoring last wrote on a prediction.
type StoredScore struct {
	Points     int
	Correct    int
	CorrectIDs []string // ids of the matches picked right, in pick order
	// CardVersion is the card version the score was computed from (0: unknown).
	CardVersion int
	// PickPoints are the picks' points, in pick order; nil when none are stored (an event
	// without ExtraScoring).
	PickPoints []int
	// PerfectCard is the perfect-card flag as stored; nil when none is (a live pass, or an
	// event without ExtraScoring).
	PerfectCard *bool
}

// Equal reports whether s and o hold the same score (a nil list and an empty one are the
// same).
func (s StoredScore) Equal(o StoredScore) bool {
	return s.Points == o.Points && s.Correct == o.Correct && s.CardVersion == o.CardVersion &&
		slices.Equal(s.CorrectIDs, o.CorrectIDs) && slices.Equal(s.PickPoints, o.PickPoints) &&
		samePtr(s.PerfectCard, o.PerfectCard)
}

// StandingDelta is what one prediction's (re)score adds to its player's season standing.
type StandingDelta struct {
	Points, Correct, EventsPlayed int
}

// Zero reports whether the delta changes nothing.
func (d StandingDelta) Zero() bool { return d == StandingDelta{} }

// Rescore is the decision scoring takes for one prediction.
type Rescore struct {
	Score      Score
	CorrectIDs []string // never nil
	// Next is what the write stores: the score, the correct picks, the card version, and
	// for an event with ExtraScoring the picks' points and the perfect-card flag.
	Next StoredScore
	// Write: the prediction must be written (what it stores differs from Next).
	Write bool
	// Delta moves the player's standing when the write lands.
	Delta StandingDelta
	// Newer: the stored score comes from a newer card than cardVersion: the caller's card
	// is out of date and it must not write.
	Newer bool
}

// RescoreEntry decides what a prediction with entry e and stored score (nil: never
// scored) must hold under ev (its card, card version and settings as the pass read them;
// ScoreEntry). A prediction reflects ev when what it stores equals Rescore.Next (points,
// correct count, correct picks, card version, and on an event with ExtraScoring the picks'
// points and perfect card); only then is there nothing to write. The standing moves by the
// difference: new − old points (each clamped at 0) and correct picks, and one more event
// played on a first score.
func RescoreEntry(ev Event, e Entry, stored *StoredScore) Rescore {
	r := Rescore{Score: ScoreEntry(ev, e), CorrectIDs: []string{}}
	for _, p := range r.Score.Picks {
		if *p.Correct {
			r.CorrectIDs = append(r.CorrectIDs, p.MatchID)
		}
	}
	r.Next = StoredScore{Points: r.Score.Points, Correct: r.Score.Correct, CorrectIDs: r.CorrectIDs, CardVersion: ev.CardVersion}
	if ev.ExtraScoring() {
		r.Next.PickPoints = make([]int, len(r.Score.Picks))
		for i, p := range r.Score.Picks {
			r.Next.PickPoints[i] = *p.Points
		}
		r.Next.PerfectCard = r.Score.PerfectCard
	}
	if stored == nil {
		r.Write = true
		r.Delta = StandingDelta{Points: r.Score.Points, Correct: r.Score.Correct, EventsPlayed: 1}
		return r
	}
	if stored.CardVersion > ev.CardVersion {
		r.Newer = true
		return r
	}
	r.Delta = StandingDelta{Points: r.Score.Points - stored.Points, Correct: r.Score.Correct - stored.Correct}
	r.Write = !stored.Equal(r.Next)
	return r
}

// RescorePrediction is RescoreEntry for picks alone under card at version cardVersion,
// with the plain settings (no joker, no bonus).
func RescorePrediction(card []Match, cardVersion int, picks []Pick, stored *StoredScore) Rescore {
	return RescoreEntry(Event{Matches: card, CardVersion: cardVersion}, Entry{Picks: picks}, stored)
}

// ApplyDelta returns the standing totals after d. A total that would fall below zero means
// the standing no longer equals the sum of the player's scored predictions (drift): that is
// reported as an INTERNAL error naming the player, never clamped, and nothing is written.
func ApplyDelta(s Standing, d StandingDelta) (Standing, error) {
	s.Points += d.Points
	s.Correct += d.Correct
	s.EventsPlayed += d.EventsPlayed
	if s.Points < 0 || s.Correct < 0 || s.EventsPlayed < 0 {
		return s, Errorf(CodeInternal, "the %d standing of player %q would fall below zero (%d points, %d correct, %d events after applying %+d, %+d, %+d): standings have drifted from the scored predictions; nothing was written for this player",
			s.Season, s.User.ID, s.Points, s.Correct, s.EventsPlayed, d.Points, d.Correct, d.EventsPlayed)
	}
	return s, nil
}
