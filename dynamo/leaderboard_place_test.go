package dynamo

// The leaderboard of an event with a tie-breaker question, through the store on DynamoDB
// Local: its order, ranks and places before the answer counts, while the pass that counts
// it is under way, and after, across pages and shards. Helpers are prefixed "lbp".

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
)

// lbpRow is a leaderboard row as a test sees it.
type lbpRow struct {
	User                string
	Points, Rank, Place int
}

// lbpPlayers are the players of TestLeaderboardPlaces: picks on a card of two matches (10
// and 5 points, both won by team 0) giving 15, 10, 5 or 0 points, and a guess (nil: none).
// The answer is 300.
var lbpPlayers = []struct {
	user   string
	m1, m2 int
	guess  *int
}{
	{"a-exact", 0, 0, scPtr(300)}, {"b-exact", 0, 0, scPtr(300)}, {"y-close", 0, 0, scPtr(299)},
	{"c-under", 0, 0, scPtr(290)}, {"d-over", 0, 0, scPtr(310)}, {"e-none", 0, 0, nil}, {"f-none", 0, 0, nil},
	{"g-close", 0, 1, scPtr(299)}, {"k-over", 0, 1, scPtr(301)}, {"h-far", 0, 1, scPtr(250)},
	{"i-none", 1, 0, nil}, {"z-exact", 1, 1, scPtr(300)},
}

// lbpUncounted is the leaderboard before the answer counts: points, then user id; every
// place is the rank.
var lbpUncounted = []lbpRow{
	{"a-exact", 15, 1, 1}, {"b-exact", 15, 1, 1}, {"c-under", 15, 1, 1}, {"d-over", 15, 1, 1}, {"e-none", 15, 1, 1},
	{"f-none", 15, 1, 1}, {"y-close", 15, 1, 1}, {"g-close", 10, 8, 8}, {"h-far", 10, 8, 8}, {"k-over", 10, 8, 8},
	{"i-none", 5, 11, 11}, {"z-exact", 0, 12, 12},
}

// lbpCounted is the leaderboard once the answer 300 counts: equal points split by the guess
// (closest first, at or under before over at the same distance, no guess last), exact ties
// sharing a place (1, 1, 3 …), ranks by points alone.
var lbpCounted = []lbpRow{
	{"a-exact", 15, 1, 1}, {"b-exact", 15, 1, 1}, {"y-close", 15, 1, 3}, {"c-under", 15, 1, 4}, {"d-over", 15, 1, 5},
	{"e-none", 15, 1, 6}, {"f-none", 15, 1, 6}, {"g-close", 10, 8, 8}, {"k-over", 10, 8, 9}, {"h-far", 10, 8, 10},
	{"i-none", 5, 11, 11}, {"z-exact", 0, 12, 12},
}

// lbpRead reads s's leaderboard of event id page by page (first rows a page; the first page
// as event(id) reads it, the next ones through EventLeaderboard with the event that page
// came with) and returns the rows and the cursors.
func lbpRead(t *testing.T, s *Store, id string, first int, picks bool) (domain.Event, []lbpRow, []string) {
	t.Helper()
	ev, page, err := s.GetEventWithLeaderboard(scCtx(t), id, first, picks)
	scOK(t, err)
	var rows []lbpRow
	var cursors []string
	for pages := 1; ; pages++ {
		for i, p := range page.Items {
			if p.Rank == nil || p.Place == nil {
				t.Fatalf("row %s without rank or place", p.User.ID)
			}
			if !picks && len(p.Picks) != 0 {
				t.Fatalf("row %s read without picks has %d", p.User.ID, len(p.Picks))
			}
			rows = append(rows, lbpRow{p.User.ID, *p.Points, *p.Rank, *p.Place})
			cursors = append(cursors, page.Cursors[i])
		}
		if !page.HasNext {
			return ev, rows, cursors
		}
		if pages > 20 {
			t.Fatalf("more than %d pages", pages)
		}
		page, err = s.EventLeaderboard(scCtx(t), ev, first, page.EndCursor(), picks)
		scOK(t, err)
	}
}

// TestLeaderboardPlaces: at 1 and 16 shards, an event with a tie-breaker question scored
// without an answer orders tied players by user id with place = rank; once the answer is
// set it still does (and cursors still open pages) until the pass that counts it
// completes — a pass cut off midway, whose rewritten rows carry the tie-break, shows every
// player once with place = rank; once it completes, pages of 2, of 50 and without picks
// show the tie-break order (distance, under before over, no guess last, exact ties sharing a
// place) with ranks by points, a cursor from before is BAD_USER_INPUT, and the first page
// is one Query at 1 shard. A store with the read cache that completes the pass shows the new
// order at once.
func TestLeaderboardPlaces(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 16} {
		t.Run(fmt.Sprintf("Shards%d", shards), func(t *testing.T) {
			t.Parallel()
			e := newGscEnv(t, shards)
			card := []domain.MatchSpec{{Name: "Opener", Points: 10, Teams: scTeams(2)}, {Name: "Main Event", Points: 5, Teams: scTeams(2)}}
			ev := e.gscCreate("2025-04-19-tie-break", domain.EventSettings{Tiebreaker: scPtr("How many seconds will the main event last?")}, card)
			for _, p := range lbpPlayers {
				e.gscSubmit(ev, gscEntry{User: p.user, Picks: []gscPick{{Match: 0, Team: p.m1}, {Match: 1, Team: p.m2}}, Joker: -1, Guess: p.guess})
			}
			e.gscResult(ev, 0, scWin(0))
			e.gscResult(ev, 1, scWin(0))
			e.gscScoreAll(e.after, ev.ID)
			cached := New(e.client, e.table, WithClock(func() time.Time { return scAfter }), WithScoreShards(shards), WithReadCache(ReadCache{TTL: time.Hour}))

			t.Run("NoAnswer", func(t *testing.T) {
				_, rows, _ := lbpRead(t, e.after, ev.ID, 2, true)
				if !slices.Equal(rows, lbpUncounted) {
					t.Fatalf("rows\n got %v\nwant %v", rows, lbpUncounted)
				}
			})
			_, _, before := lbpRead(t, e.after, ev.ID, 2, true)
			set, err := e.after.SetTiebreakerAnswer(scCtx(t), ev.ID, scPtr(300))
			scOK(t, err)
			if set.CountedAnswer() != nil {
				t.Fatalf("the answer counts before a pass: %+v", set.Answer)
			}
			t.Run("AnswerSetNotCountedYet", func(t *testing.T) {
				_, rows, _ := lbpRead(t, e.after, ev.ID, 2, true)
				if !slices.Equal(rows, lbpUncounted) {
					t.Fatalf("rows\n got %v\nwant %v", rows, lbpUncounted)
				}
				page, err := e.after.EventLeaderboard(scCtx(t), set, 2, before[1], true)
				scOK(t, err)
				if len(page.Items) != 2 || page.Items[0].User.ID != lbpUncounted[2].User {
					t.Fatalf("the cursor made before the answer was set opens %v", predUsers(page.Items))
				}
			})
			// The cached store shows the leaderboard before the pass (its first page kept).
			if _, rows, _ := lbpRead(t, cached, ev.ID, 2, true); !slices.Equal(rows, lbpUncounted) {
				t.Fatalf("cached store before the pass: %v", rows)
			}

			t.Run("MidPass", func(t *testing.T) {
				// The pass cut off after one transaction: at 1 shard every row is rewritten
				// (one batch) but the event not marked; at 16 some shards are.
				faulty := newScFaultAPI(e.client)
				faulty.failAfter = 1
				s := New(faulty, e.table, WithClock(func() time.Time { return scAfter }), WithScoreShards(shards))
				if _, err := s.ScoreEvent(scCtx(t), ev.ID, false); err == nil {
					t.Fatal("the cut-off pass completed")
				}
				snap := e.snapshot()
				if row := snap.events[ev.ID]; row.ScoredVersion >= row.AnswerVersion {
					t.Fatalf("the event row records the pass: %+v", snap.events[ev.ID])
				}
				rewritten := 0
				for _, p := range snap.predictions {
					if p.ScoredWith != nil && *p.ScoredWith == snap.events[ev.ID].CardVersion {
						rewritten++
					}
				}
				if rewritten == 0 || (shards > 1 && rewritten == len(lbpPlayers)) {
					t.Fatalf("%d of %d rows rewritten: not midway", rewritten, len(lbpPlayers))
				}
				_, rows, _ := lbpRead(t, e.after, ev.ID, 2, true)
				var users []string
				for i, r := range rows {
					want := lbpUncounted[slices.IndexFunc(lbpUncounted, func(w lbpRow) bool { return w.User == r.User })]
					if r != want || (i > 0 && r.Points > rows[i-1].Points) {
						t.Fatalf("row %d: %v, want %v (place = rank, points high first)", i, r, want)
					}
					users = append(users, r.User)
				}
				if slices.Sort(users); len(slices.Compact(users)) != len(lbpPlayers) || len(rows) != len(lbpPlayers) {
					t.Fatalf("mid-pass pages show %d rows of %d players", len(rows), len(lbpPlayers))
				}
				t.Logf("%d of %d rows rewritten mid-pass", rewritten, len(lbpPlayers))
			})

			// The cached store completes the pass: the answer counts.
			rep := e.gscScoreAll(cached, ev.ID)
			if !rep.Complete {
				t.Fatalf("pass: %+v", rep)
			}
			e.snapshot().checkSums(t)
			t.Run("Counted", func(t *testing.T) {
				for _, tc := range []struct {
					name  string
					s     *Store
					first int
					picks bool
				}{
					{"PagesOf2", e.after, 2, true}, {"PagesOf2WithoutPicks", e.after, 2, false}, {"PagesOf5", e.after, 5, true},
					{"OnePageOf50", e.after, 50, true}, {"CachedStoreThatScored", cached, 2, true},
				} {
					t.Run(tc.name, func(t *testing.T) {
						got, rows, _ := lbpRead(t, tc.s, ev.ID, tc.first, tc.picks)
						if a := got.CountedAnswer(); a == nil || *a != 300 {
							t.Fatalf("counted answer %v, want 300", gscDeref(a))
						}
						if !slices.Equal(rows, lbpCounted) {
							t.Fatalf("rows\n got %v\nwant %v", rows, lbpCounted)
						}
					})
				}
			})
			t.Run("StaleCursorRefused", func(t *testing.T) {
				counted, err := e.after.GetEvent(scCtx(t), ev.ID)
				scOK(t, err)
				for _, c := range before[:3] {
					_, err := e.after.EventLeaderboard(scCtx(t), counted, 2, c, true)
					wantCode(t, err, domain.CodeBadUserInput)
				}
				// And a cursor of the counted order under an event read before it counted.
				_, _, now := lbpRead(t, e.after, ev.ID, 2, true)
				_, err = e.after.EventLeaderboard(scCtx(t), set, 2, now[1], true)
				wantCode(t, err, domain.CodeBadUserInput)
			})
			t.Run("FirstPageOneQuery", func(t *testing.T) {
				fresh := New(e.client, e.table, WithClock(func() time.Time { return scAfter }))
				ctx, cost := ddb.WithCost(scCtx(t))
				_, page, err := fresh.GetEventWithLeaderboard(ctx, ev.ID, 2, true)
				scOK(t, err)
				want := 1 // the card and the top
				if shards > 1 {
					want = 1 + shards // the card's Query finds the count, then the shards
				}
				if c := cost.Snapshot().Calls; c != want || len(page.Items) != 2 || *page.Items[1].Place != 1 {
					t.Fatalf("%d calls (want %d), rows %v", c, want, predUsers(page.Items))
				}
			})
			t.Run("PlaceOnlyOnLeaderboardRows", func(t *testing.T) {
				p, err := e.after.GetPrediction(scCtx(t), "c-under", ev.ID, true)
				scOK(t, err)
				if p.Place != nil || p.Rank == nil || *p.Rank != 1 || p.Tiebreaker == nil || *p.Tiebreaker != 290 {
					t.Fatalf("prediction read alone: place %v rank %v guess %v", gscDeref(p.Place), gscDeref(p.Rank), gscDeref(p.Tiebreaker))
				}
			})
		})
	}
}
