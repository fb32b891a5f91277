package domain

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// TestCompareLeaderboard: every key of the order with a counted answer, in turn, and the
// standings' order without one.
func TestCompareLeaderboard(t *testing.T) {
	row := func(points int, guess *int, user string) LeaderboardRow {
		return LeaderboardRow{Points: points, Guess: guess, UserID: user}
	}
	answer := ptr(600)
	tests := []struct {
		name   string
		answer *int
		a, b   LeaderboardRow
		want   int
	}{
		{"PointsFirst", answer, row(10, nil, "zed"), row(9, ptr(600), "amy"), -1},
		{"NoGuessAfterGuesses", answer, row(10, ptr(1_000_000), "zed"), row(10, nil, "amy"), -1},
		{"CloserGuessFirst", answer, row(10, ptr(590), "zed"), row(10, ptr(580), "amy"), -1},
		{"CloserGuessOverFirst", answer, row(10, ptr(601), "zed"), row(10, ptr(598), "amy"), -1},
		{"ExactGuessFirst", answer, row(10, ptr(600), "zed"), row(10, ptr(599), "amy"), -1},
		{"UnderBeforeOverAtSameDistance", answer, row(10, ptr(610), "amy"), row(10, ptr(590), "zed"), 1},
		{"SameGuessByUserID", answer, row(10, ptr(590), "amy"), row(10, ptr(590), "zed"), -1},
		{"NoGuessesByUserID", answer, row(10, nil, "zed"), row(10, nil, "amy"), 1},
		{"SamePlayer", answer, row(10, ptr(590), "amy"), row(10, ptr(590), "amy"), 0},
		{"AnswerZero", ptr(0), row(10, ptr(0), "zed"), row(10, ptr(1), "amy"), -1},
		{"AnswerAtTheTop", ptr(MaxTiebreakerAnswer), row(10, ptr(0), "zed"), row(10, nil, "amy"), -1},
		{"NoAnswerIsStandingsOrder", nil, row(10, ptr(600), "zed"), row(10, nil, "amy"), 1},
		{"NoAnswerPointsFirst", nil, row(11, nil, "zed"), row(10, ptr(600), "amy"), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CompareLeaderboard(tt.answer, tt.a, tt.b); sign(got) != tt.want {
				t.Errorf("CompareLeaderboard = %d, want sign %d", got, tt.want)
			}
			if got := CompareLeaderboard(tt.answer, tt.b, tt.a); sign(got) != -tt.want {
				t.Errorf("swapped: CompareLeaderboard = %d, want sign %d", got, -tt.want)
			}
			if tt.answer == nil {
				if got, want := CompareLeaderboard(nil, tt.a, tt.b), CompareStandings(tt.a.Points, tt.a.UserID, tt.b.Points, tt.b.UserID); sign(got) != sign(want) {
					t.Errorf("without an answer: %d, CompareStandings %d", got, want)
				}
			}
		})
	}
}

// leaderboardRows is a list with every case of the order: several point totals, guesses on
// both sides of answers at the same and other distances, the bounds, no guess, exact ties.
func leaderboardRows() []LeaderboardRow {
	guesses := []*int{nil, ptr(0), ptr(1), ptr(499), ptr(500), ptr(501), ptr(502), ptr(498), ptr(999_999), ptr(MaxTiebreakerAnswer)}
	var rows []LeaderboardRow
	for _, points := range []int{0, 7, 30} {
		for i, g := range guesses {
			for _, u := range []string{"amy", "bob"} {
				rows = append(rows, LeaderboardRow{Points: points, Guess: g, UserID: fmt.Sprintf("%s%d", u, i)})
			}
		}
	}
	rows = append(rows, LeaderboardRow{Points: 7, Guess: ptr(501), UserID: "zed"}, LeaderboardRow{Points: 7, Guess: ptr(501), UserID: "abe"})
	return rows
}

var leaderboardAnswers = []*int{nil, ptr(0), ptr(1), ptr(500), ptr(MaxTiebreakerAnswer)}

// sortKey is an index sort key as a store builds one from the rule's parts: the inverted
// points, the tie-break key, the user id.
func sortKey(answer *int, r LeaderboardRow) string {
	return fmt.Sprintf("%09d#%s#%s", 999_999_999-r.Points, TiebreakKey(answer, r.Guess), r.UserID)
}

// TestTiebreakKeyOrderIsCompareLeaderboard: for every pair of rows under every answer,
// sort keys built with TiebreakKey compare as strings as CompareLeaderboard compares the
// rows, and the tie-break keys alone as CompareTiebreak does; every key has the same width.
func TestTiebreakKeyOrderIsCompareLeaderboard(t *testing.T) {
	rows := leaderboardRows()
	for _, answer := range leaderboardAnswers {
		for _, a := range rows {
			if k := TiebreakKey(answer, a.Guess); len(k) != TiebreakKeyLen {
				t.Fatalf("TiebreakKey(%v, %v) = %q: %d bytes, want %d", show(answer), show(a.Guess), k, len(k), TiebreakKeyLen)
			}
			for _, b := range rows {
				if keys, rule := strings.Compare(sortKey(answer, a), sortKey(answer, b)), CompareLeaderboard(answer, a, b); sign(keys) != sign(rule) {
					t.Fatalf("answer %v: %+v vs %+v: keys compare %d, CompareLeaderboard %d", show(answer), a, b, keys, rule)
				}
				if keys, rule := strings.Compare(TiebreakKey(answer, a.Guess), TiebreakKey(answer, b.Guess)), CompareTiebreak(answer, a.Guess, b.Guess); sign(keys) != sign(rule) {
					t.Fatalf("answer %v: guesses %v vs %v: keys compare %d, CompareTiebreak %d", show(answer), show(a.Guess), show(b.Guess), keys, rule)
				}
			}
		}
	}
}

// FuzzTiebreakKey: for any answer and guesses within the bounds, the keys' byte order is
// CompareTiebreak's, and equal keys mean equal guesses once an answer counts.
func FuzzTiebreakKey(f *testing.F) {
	f.Add(600, 590, 610, true, true)
	f.Add(0, 0, 1_000_000, true, false)
	f.Add(1_000_000, 0, 999_999, false, true)
	f.Fuzz(func(t *testing.T, answer, a, b int, hasA, hasB bool) {
		clamp := func(v int) int { return min(max(v, 0), MaxTiebreakerAnswer) }
		ans := clamp(answer)
		var ga, gb *int
		if hasA {
			ga = ptr(clamp(a))
		}
		if hasB {
			gb = ptr(clamp(b))
		}
		ka, kb := TiebreakKey(&ans, ga), TiebreakKey(&ans, gb)
		if len(ka) != TiebreakKeyLen || len(kb) != TiebreakKeyLen {
			t.Fatalf("keys %q %q are not %d bytes", ka, kb, TiebreakKeyLen)
		}
		if keys, rule := strings.Compare(ka, kb), CompareTiebreak(&ans, ga, gb); sign(keys) != sign(rule) {
			t.Fatalf("answer %d: %v vs %v: keys %q %q compare %d, CompareTiebreak %d", ans, show(ga), show(gb), ka, kb, keys, rule)
		}
		if (ka == kb) != samePtr(ga, gb) {
			t.Fatalf("answer %d: guesses %v and %v have keys %q and %q", ans, show(ga), show(gb), ka, kb)
		}
	})
}

// TestPlacer: places split tied points by the tie-breaker and share exact ties; ranks stay
// by points; until the answer counts the place is the rank.
func TestPlacer(t *testing.T) {
	type row struct {
		points int
		guess  *int
		user   string
	}
	// Answer 600, in CompareLeaderboard's order.
	rows := []row{
		{50, ptr(900), "ann"},
		{40, ptr(600), "bob"},
		{40, ptr(590), "cid"},
		{40, ptr(590), "dot"}, // exact tie with cid
		{40, ptr(610), "eve"}, // same distance as cid and dot, over: after them
		{40, nil, "fay"},
		{40, nil, "gus"}, // exact tie with fay: no guess either
		{30, ptr(600), "hal"},
	}
	tests := []struct {
		name   string
		answer *int
		ranks  []int
		places []int
	}{
		{"PlaceSharesExactTies", ptr(600), []int{1, 2, 2, 2, 2, 2, 2, 8}, []int{1, 2, 3, 3, 5, 6, 6, 8}},
		{"PlaceIsRankUntilTheAnswerCounts", nil, []int{1, 2, 2, 2, 2, 2, 2, 8}, []int{1, 2, 2, 2, 2, 2, 2, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.answer != nil {
				for i := 1; i < len(rows); i++ {
					a, b := rows[i-1], rows[i]
					if CompareLeaderboard(tt.answer, LeaderboardRow{a.points, a.guess, a.user}, LeaderboardRow{b.points, b.guess, b.user}) >= 0 {
						t.Fatalf("the test's rows are not in CompareLeaderboard's order at %d", i)
					}
				}
			}
			// Every split into two pages: the second page continues from the state after the
			// first page's last row, as a cursor restores it.
			for split := 0; split <= len(rows); split++ {
				p := Placer{Answer: tt.answer}
				var ranks, places []int
				for i, r := range rows {
					if i == split {
						p = Placer{Answer: tt.answer, Ranker: p.Ranker, Place: p.Place, Guess: p.Guess}
					}
					rank, place := p.Next(r.points, r.guess)
					ranks, places = append(ranks, rank), append(places, place)
				}
				if !slices.Equal(ranks, tt.ranks) || !slices.Equal(places, tt.places) {
					t.Fatalf("split at %d: ranks %v places %v, want %v and %v", split, ranks, places, tt.ranks, tt.places)
				}
			}
		})
	}
}

// TestPlacerMatchesTheRule: on a sorted list with every case, a row's place is 1 + the rows
// before it that differ from it on any key but user id, and its rank is Ranker's.
func TestPlacerMatchesTheRule(t *testing.T) {
	for _, answer := range leaderboardAnswers {
		rows := leaderboardRows()
		slices.SortFunc(rows, func(a, b LeaderboardRow) int { return CompareLeaderboard(answer, a, b) })
		p := Placer{Answer: answer}
		var r Ranker
		for i, row := range rows {
			rank, place := p.Next(row.Points, row.Guess)
			want := 1
			for _, before := range rows[:i] {
				if before.Points != row.Points || (answer != nil && CompareTiebreak(answer, before.Guess, row.Guess) != 0) {
					want++
				}
			}
			if place != want || rank != r.Next(row.Points) {
				t.Fatalf("answer %v, row %d %+v: rank %d place %d, want rank %d place %d", show(answer), i, row, rank, place, r.Rank, want)
			}
		}
	}
}
