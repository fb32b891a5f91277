package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// TestReadCacheShowsOwnWrites is the read cache's invalidation matrix (readcache.go), pair by
// pair: a read fills the cache, the write goes through the same store, and the same read
// at once shows the change. Each row first checks that its read does not show the change
// yet, so a row whose write changed nothing cannot pass.
func TestReadCacheShowsOwnWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := New(f.db, f.table, WithClock(f.clock.Now), WithScoreShards(testShards), WithReadCache(ReadCache{TTL: time.Hour}))
	ctx := ctxT(t)

	// Picks are made in January; from March (t0) the February events are locked by time.
	f.clock.Set(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	scored := f.createEvent("2030-02-10-scored-show", 20, standardCard())
	live := f.createEvent("2030-02-20-live-show", 20, standardCard())
	open := f.createEvent("2030-03-20-open-show", 20, standardCard())
	asked, err := s.CreateEvent(ctx, domain.EventSpec{ID: ptr("2030-02-25-asked-show"), Name: "Asked Show",
		StartsAt: time.Date(2030, 2, 25, 20, 0, 0, 0, time.UTC), Matches: standardCard(), Settings: domain.EventSettings{Tiebreaker: ptr("How long?")}})
	mustOK(t, err)
	// Points on scored (10, 5 and 3 for team 0): p-top 18, p-stay 15, p-reg 13, p-mod 8,
	// p-del 5, p-del2 3, p-low 0.
	for _, p := range []struct {
		user  string
		teams []int
	}{
		{"p-top", []int{0, 0, 0}}, {"p-stay", []int{0, 0, 1}}, {"p-reg", []int{0, 1, 0}}, {"p-mod", []int{1, 0, 0}},
		{"p-del", []int{1, 0, 1}}, {"p-del2", []int{1, 1, 0}}, {"p-low", []int{1, 1, 1}},
	} {
		f.submit(p.user, scored, p.teams...)
		f.submit(p.user, live, p.teams...)
	}
	f.clock.Set(t0)
	f.lockAndResult(scored, 0, 0, 0)
	f.score(scored)

	card := func(t *testing.T, ev domain.Event) domain.Event {
		t.Helper()
		e, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		return e
	}
	leaderboard := func(t *testing.T) domain.Page[domain.Prediction] {
		t.Helper()
		_, page, err := s.GetEventWithLeaderboard(ctx, scored.ID, 10, true)
		mustOK(t, err)
		return page
	}
	standings := func(t *testing.T) domain.Page[domain.Standing] {
		t.Helper()
		page, err := s.Standings(ctx, 2030, 10, "")
		mustOK(t, err)
		return page
	}
	rowName := func(t *testing.T, user string) string {
		for _, p := range leaderboard(t).Items {
			if p.User.ID == user {
				return p.User.Name
			}
		}
		return "(absent)"
	}
	standingName := func(t *testing.T, user string) string {
		for _, st := range standings(t).Items {
			if st.User.ID == user {
				return st.User.Name
			}
		}
		return "(absent)"
	}
	rank := func(t *testing.T, user string) string {
		p, err := s.GetPrediction(ctx, user, scored.ID, true)
		mustOK(t, err)
		if p.Rank == nil {
			return "none"
		}
		return fmt.Sprint(*p.Rank)
	}
	result := func(m domain.Match) string {
		if m.Result == nil {
			return "none"
		}
		return fmt.Sprintf("%s %d", m.Result.Outcome, *m.Result.Winner)
	}
	win := func(i int) *domain.MatchResult {
		return &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(i)}
	}
	scoreAll := func(t *testing.T, ev domain.Event) {
		t.Helper()
		for {
			r, err := s.ScoreEvent(ctx, ev.ID, false)
			mustOK(t, err)
			if r.Complete {
				return
			}
		}
	}

	tests := []struct {
		name  string
		look  func(t *testing.T) string // what the cached read shows
		write func(t *testing.T)
		want  string
	}{
		{"CardAfterUpdateEvent",
			func(t *testing.T) string { return card(t, open).Name },
			func(t *testing.T) {
				_, err := s.UpdateEvent(ctx, open.ID, domain.EventUpdate{Name: ptr("Open Show Renamed")})
				mustOK(t, err)
			}, "Open Show Renamed"},
		{"CardAfterUpdateEventSettings",
			func(t *testing.T) string { return fmt.Sprint(card(t, open).Settings.Jokers) },
			func(t *testing.T) {
				_, err := s.UpdateEvent(ctx, open.ID, domain.EventUpdate{Jokers: ptr(true)})
				mustOK(t, err)
			}, "true"},
		{"CardAfterAddMatch",
			func(t *testing.T) string { return fmt.Sprint(len(card(t, open).Matches)) },
			func(t *testing.T) { _, err := s.AddMatch(ctx, open.ID, matchSpec("Added", 4)); mustOK(t, err) }, "4"},
		{"CardAfterUpdateMatch",
			func(t *testing.T) string { return fmt.Sprint(card(t, open).Matches[0].Points) },
			func(t *testing.T) {
				_, err := s.UpdateMatch(ctx, open.ID, open.Matches[0].ID, domain.MatchUpdate{Points: ptr(20)})
				mustOK(t, err)
			}, "20"},
		{"CardAfterReorderMatches",
			func(t *testing.T) string { return card(t, open).Matches[0].Name },
			func(t *testing.T) {
				ids := matchIDs(card(t, open).Matches)
				slices.Reverse(ids)
				_, err := s.ReorderMatches(ctx, open.ID, ids)
				mustOK(t, err)
			}, "Added"},
		{"CardAfterRemoveMatch",
			func(t *testing.T) string { return fmt.Sprint(len(card(t, open).Matches)) },
			func(t *testing.T) { mustOK(t, s.RemoveMatch(ctx, open.ID, card(t, open).Matches[0].ID)) }, "3"},
		{"CardAfterSetResult",
			func(t *testing.T) string { return result(card(t, live).Matches[0]) },
			func(t *testing.T) { _, err := s.SetResult(ctx, live.ID, live.Matches[0].ID, win(0)); mustOK(t, err) }, "WIN 0"},
		{"CardAfterSetTiebreakerAnswer",
			func(t *testing.T) string {
				if a := card(t, asked).Answer; a != nil {
					return fmt.Sprint(a.Value)
				}
				return "none"
			},
			func(t *testing.T) { _, err := s.SetTiebreakerAnswer(ctx, asked.ID, ptr(42)); mustOK(t, err) }, "42"},
		{"CardAfterScoreEvent",
			func(t *testing.T) string { return fmt.Sprint(card(t, live).ScoredMatches) },
			func(t *testing.T) { scoreAll(t, live) }, "1"},
		{"LeaderboardAfterUpdateEvent",
			func(t *testing.T) string { return leaderboard(t).Items[0].Event.Name },
			func(t *testing.T) {
				_, err := s.UpdateEvent(ctx, scored.ID, domain.EventUpdate{Name: ptr("Scored Show Renamed")})
				mustOK(t, err)
			}, "Scored Show Renamed"},
		{"LeaderboardAfterRegister",
			func(t *testing.T) string { return rowName(t, "p-reg") },
			func(t *testing.T) { _, err := s.Register(ctx, "p-reg", "Reggie"); mustOK(t, err) }, "Reggie"},
		{"LeaderboardAfterRenamePlayer",
			func(t *testing.T) string { return rowName(t, "p-mod") },
			func(t *testing.T) { _, err := s.RenamePlayer(ctx, "p-mod", "Moderated"); mustOK(t, err) }, "Moderated"},
		{"LeaderboardAfterDeleteMe",
			func(t *testing.T) string { return rowName(t, "p-del") },
			func(t *testing.T) { mustOK(t, s.DeleteUser(ctx, "p-del")) }, "(absent)"},
		{"LeaderboardAfterScoringACorrection",
			func(t *testing.T) string {
				for _, p := range leaderboard(t).Items {
					if p.User.ID == "p-top" {
						return fmt.Sprint(*p.Points)
					}
				}
				return "(absent)"
			},
			func(t *testing.T) {
				// Match 1 to team 1: p-top (0,0,0) drops from 18 to 8.
				_, err := s.SetResult(ctx, scored.ID, scored.Matches[0].ID, win(1))
				mustOK(t, err)
				scoreAll(t, scored)
			}, "8"},
		{"StandingsAfterRegister",
			func(t *testing.T) string { return standingName(t, "p-reg") },
			func(t *testing.T) { _, err := s.Register(ctx, "p-reg", "Reggie Again"); mustOK(t, err) }, "Reggie Again"},
		{"StandingsAfterRenamePlayer",
			func(t *testing.T) string { return standingName(t, "p-mod") },
			func(t *testing.T) { _, err := s.RenamePlayer(ctx, "p-mod", "Moderated Again"); mustOK(t, err) }, "Moderated Again"},
		{"StandingsAfterDeleteMe",
			func(t *testing.T) string { return standingName(t, "p-low") },
			func(t *testing.T) { mustOK(t, s.DeleteUser(ctx, "p-low")) }, "(absent)"},
		{"StandingsAfterScoreEvent",
			func(t *testing.T) string { return fmt.Sprint(standings(t).Items[0].Points) },
			func(t *testing.T) {
				// Live scoring of the live event's first result: team 0 of match 1 (10 points)
				// adds 10 to the leader's season.
				scoreAll(t, live)
				_, err := s.SetResult(ctx, live.ID, live.Matches[1].ID, win(0))
				mustOK(t, err)
				scoreAll(t, live)
			}, "23"},
		{"RankAfterScoreEvent",
			func(t *testing.T) string { return rank(t, "p-stay") },
			func(t *testing.T) {
				_, err := s.SetResult(ctx, scored.ID, scored.Matches[0].ID, win(0))
				mustOK(t, err)
				scoreAll(t, scored)
			}, "2"},
		{"RankAfterDeleteMe",
			func(t *testing.T) string { return rank(t, "p-stay") },
			func(t *testing.T) { mustOK(t, s.DeleteUser(ctx, "p-top")) }, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.look(t); got == tt.want {
				t.Fatalf("before the write the read shows %q already", got)
			}
			tt.write(t)
			if got := tt.look(t); got != tt.want {
				t.Errorf("after the write the same store shows %q, want %q", got, tt.want)
			}
		})
	}
}

// holdQueries is an API that holds the answers of the Queries match accepts (made, not yet
// returned) until release is closed, and reports each one it holds on held.
type holdQueries struct {
	ddb.API
	match   func(*dynamodb.QueryInput) bool
	held    chan struct{}
	release chan struct{}
}

func (h *holdQueries) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := h.API.Query(ctx, in, o...)
	if h.match(in) {
		select {
		case h.held <- struct{}{}:
		default:
		}
		select {
		case <-h.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return out, err
}

// readsPartition reports whether a Query's values name a partition starting with prefix.
func readsPartition(prefix string) func(*dynamodb.QueryInput) bool {
	return func(in *dynamodb.QueryInput) bool {
		for _, v := range in.ExpressionAttributeValues {
			if s, ok := v.(*types.AttributeValueMemberS); ok && strings.HasPrefix(s.Value, prefix) {
				return true
			}
		}
		return false
	}
}

// TestReadCacheFillStartedBeforeAWriteIsNotKept holds a standings page's fill open across a
// rename made by the same store: the fill answers its caller with what it read, but the
// cache keeps none of it, and a read that starts after the rename does not share that fill.
func TestReadCacheFillStartedBeforeAWriteIsNotKept(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	f.clock.Set(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	ev := f.createEvent("2030-02-10-held-show", 20, standardCard())
	f.submit("p-held", ev, 0, 0, 0)
	f.clock.Set(t0)
	f.lockAndResult(ev, 0, 0, 0)
	f.score(ev)

	hold := &holdQueries{API: f.db, match: readsPartition(table.SeasonKeyPrefix), held: make(chan struct{}, 1), release: make(chan struct{})}
	s := New(hold, f.table, WithClock(f.clock.Now), WithScoreShards(testShards), WithReadCache(ReadCache{TTL: time.Hour}))
	name := func(page domain.Page[domain.Standing]) string {
		if len(page.Items) != 1 {
			return fmt.Sprintf("(%d rows)", len(page.Items))
		}
		return page.Items[0].User.Name
	}
	read := func(out *string, wg *sync.WaitGroup) {
		defer wg.Done()
		page, err := s.Standings(ctx, 2030, 10, "")
		if err != nil {
			t.Errorf("standings: %v", err)
			return
		}
		*out = name(page)
	}

	var before, after string
	var wg sync.WaitGroup
	wg.Add(1)
	go read(&before, &wg) // its fill is held open
	<-hold.held
	if _, err := s.RenamePlayer(ctx, "p-held", "Renamed While Held"); err != nil {
		close(hold.release)
		t.Fatal(err)
	}
	wg.Add(1)
	go read(&after, &wg) // starts after the rename, possibly while the first fill is still held
	close(hold.release)
	wg.Wait()

	if before != "Player p-held" {
		t.Errorf("the held read answered %q, want the name it read, %q", before, "Player p-held")
	}
	if after != "Renamed While Held" {
		t.Errorf("a read started after the rename answered %q, want %q", after, "Renamed While Held")
	}
	page, err := s.Standings(ctx, 2030, 10, "")
	mustOK(t, err)
	if got := name(page); got != "Renamed While Held" {
		t.Errorf("the next read answered %q from the cache, want %q", got, "Renamed While Held")
	}
}
