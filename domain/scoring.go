package domain

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// Score is what one prediction earns.
type Score struct {
	Points  int
	Correct int
	// Picks carries the prediction's picks with Correct set.
	Picks []Pick
}

// ScorePicks scores picks against a card. A correct pick earns the match's points; a
// voided match (DRAW, NO_CONTEST), a match without a result yet (live scoring: provisional
// points) and a pick on a match no longer on the card earn nothing and are not correct.
func ScorePicks(card []Match, picks []Pick) Score {
	byID := make(map[string]Match, len(card))
	for _, m := range card {
		byID[m.ID] = m
	}
	s := Score{Picks: make([]Pick, len(picks))}
	for i, p := range picks {
		ok := false
		if m, found := byID[p.MatchID]; found && m.Result != nil && !m.Result.Void() &&
			m.Result.Winner != nil && *m.Result.Winner == p.Team {
			ok = true
			s.Points += m.Points
			s.Correct++
		}
		p.Correct = &ok
		s.Picks[i] = p
	}
	return s
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
	// Write: the prediction must be written (its score, its correct picks or the card
	// version it reflects differ from what is stored).
	Write bool
	// Delta moves the player's standing when the write lands.
	Delta StandingDelta
	// Newer: the stored score comes from a newer card than cardVersion: the caller's card
	// is out of date and it must not write.
	Newer bool
}

// RescorePrediction decides what a prediction with picks and stored score (nil: never
// scored) must hold under card, version cardVersion (matches without a result count
// nothing yet). A
// prediction reflects the card when its points, correct count, correct picks and card
// version all match; only then is there nothing to write. The standing moves by the
// difference: new − old points and correct picks, and one more event played on a first
// score.
func RescorePrediction(card []Match, cardVersion int, picks []Pick, stored *StoredScore) Rescore {
	r := Rescore{Score: ScorePicks(card, picks), CorrectIDs: []string{}}
	for _, p := range r.Score.Picks {
		if *p.Correct {
			r.CorrectIDs = append(r.CorrectIDs, p.MatchID)
		}
	}
	if stored == nil {
		r.Write = true
		r.Delta = StandingDelta{Points: r.Score.Points, Correct: r.Score.Correct, EventsPlayed: 1}
		return r
	}
	if stored.CardVersion > cardVersion {
		r.Newer = true
		return r
	}
	r.Delta = StandingDelta{Points: r.Score.Points - stored.Points, Correct: r.Score.Correct - stored.Correct}
	r.Write = stored.CardVersion != cardVersion || !r.Delta.Zero() || !slices.Equal(stored.CorrectIDs, r.CorrectIDs)
	return r
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
