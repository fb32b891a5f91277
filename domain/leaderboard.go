package domain

import (
	"cmp"
	"fmt"
	"strings"
)

// An event's leaderboard. Until its tie-breaker answer counts (Event.CountedAnswer), it is
// ordered as every ranked list is (CompareStandings: points high first, then user id) and a
// row's place is its rank. Once the answer counts, players on equal points are ordered by
// the tie-breaker (CompareLeaderboard) and places split them (Placer); ranks stay by points
// alone.

// LeaderboardRow is what orders a scored prediction on its event's leaderboard.
type LeaderboardRow struct {
	Points int
	Guess  *int // the tie-breaker guess; nil: none
	UserID string
}

// CompareLeaderboard orders leaderboard rows under answer, the counted tie-breaker answer
// (nil: none counts, and the order is CompareStandings'): points high first, then a guess
// before no guess, then the distance |guess − answer| small first, then at the same
// distance a guess at or under the answer before one over it, then user id. It returns a
// negative number when a comes before b, zero when they are the same player's, positive
// otherwise.
func CompareLeaderboard(answer *int, a, b LeaderboardRow) int {
	if a.Points != b.Points {
		return CompareStandings(a.Points, a.UserID, b.Points, b.UserID)
	}
	if c := CompareTiebreak(answer, a.Guess, b.Guess); c != 0 {
		return c
	}
	return strings.Compare(a.UserID, b.UserID)
}

// CompareTiebreak orders two guesses under answer by the tie-breaker alone (the keys of
// CompareLeaderboard between points and user id); 0 when they tie: answer nil, or the same
// guess (both nil included).
func CompareTiebreak(answer, a, b *int) int {
	ka, kb := tiebreakOf(answer, a), tiebreakOf(answer, b)
	return cmp.Or(cmp.Compare(ka.none, kb.none), cmp.Compare(ka.distance, kb.distance), cmp.Compare(ka.over, kb.over))
}

// tiebreak is a guess's tie-break keys under an answer, each smaller first.
type tiebreak struct {
	none     int // 1 without a guess
	distance int // |guess − answer|
	over     int // 1 for a guess over the answer
}

// tiebreakOf is guess's keys under answer; every guess has the zero keys when answer is nil.
func tiebreakOf(answer, guess *int) tiebreak {
	switch {
	case answer == nil:
		return tiebreak{}
	case guess == nil:
		return tiebreak{none: 1}
	case *guess > *answer:
		return tiebreak{distance: *guess - *answer, over: 1}
	default:
		return tiebreak{distance: *answer - *guess}
	}
}

// TiebreakKeyLen is the length of every TiebreakKey.
const TiebreakKeyLen = 9

// TiebreakKey is guess's tie-break keys under answer as a fixed-width string whose byte
// order is CompareTiebreak's: a digit for no guess (0 with one, 1 without), the distance
// |guess − answer| in 7 digits, a digit for over the answer (0 at or under, 1 over). With
// answer nil every guess has the same key. For a sort key of CompareLeaderboard's order,
// put it after the inverted points and before the user id. guess and answer must be within
// 0..MaxTiebreakerAnswer (ValidTiebreakerValue), as stored ones are.
func TiebreakKey(answer, guess *int) string {
	k := tiebreakOf(answer, guess)
	return fmt.Sprintf("%d%07d%d", k.none, k.distance, k.over)
}

// Placer gives leaderboard rows, taken in CompareLeaderboard order under Answer, their
// rank and place. The rank is Ranker's (points only, ties shared: 1, 2, 2, 4). The place is
// 1 + the rows before the row that differ from it on points or the tie-breaker (user id
// aside), so exact ties share one (1, 2, 2, 4); with Answer nil it is the rank. The zero
// value with Answer set starts a list; a Placer restored from a cursor (its Ranker state,
// Place and the last row's Guess) continues one.
type Placer struct {
	Answer *int   // the counted answer (Event.CountedAnswer); nil: place = rank
	Ranker Ranker // rank state after the last row
	Place  int    // place of the last row
	Guess  *int   // guess of the last row
}

// Next returns the rank and the place of the next row, which has points and guess.
func (p *Placer) Next(points int, guess *int) (rank, place int) {
	tied := p.Ranker.Index > 0 && points == p.Ranker.Points && CompareTiebreak(p.Answer, guess, p.Guess) == 0
	rank = p.Ranker.Next(points)
	switch {
	case p.Answer == nil:
		p.Place = rank
	case !tied:
		p.Place = p.Ranker.Index
	}
	p.Guess = nil
	if guess != nil {
		g := *guess
		p.Guess = &g
	}
	return rank, p.Place
}
