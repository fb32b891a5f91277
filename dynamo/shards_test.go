package dynamo

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/awsfaithful"
	"github.com/pickem/api/internal/capacity"
	"github.com/pickem/api/internal/dynamotest"
)

// TestEventsAndSeasonsOfBothShardCounts lives a season through the setting being raised:
// an event created at one shard, then (the setting raised to sixteen) an event of the same
// season at sixteen shards and one of the next season. Each event and season keeps the
// count it was created with; both kinds are scored live and final in one table, and their
// pages, cursors, ranks and pick counts are right whatever the reading store's setting.
func TestEventsAndSeasonsOfBothShardCounts(t *testing.T) {
	t.Parallel()
	f := newFixtureShards(t, 1)
	ctx := ctxT(t)
	one, sixteen := f.s, f.storeOver(f.db, WithScoreShards(16))
	opening := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	f.clock.Set(opening)
	create := func(s *Store, id string) domain.Event {
		day, _ := time.Parse("2006-01-02", id[:10])
		ev, err := s.CreateEvent(ctx, domain.EventSpec{ID: ptr(id), Name: id[11:], StartsAt: day.Add(20 * time.Hour), Matches: standardCard()})
		mustOK(t, err)
		return ev
	}
	small := create(one, "2030-02-10-one-shard")
	big := create(sixteen, "2030-02-20-sixteen-shards")
	next := create(sixteen, "2031-02-10-next-season")
	for _, c := range []struct {
		ev     domain.Event
		shards int
	}{{small, 1}, {big, 16}, {next, 16}} {
		if row := eventRowOf(t, f.db, f.table, c.ev.ID); row.Shards != c.shards || row.LockCopies != table.LockCopies(c.shards) {
			t.Errorf("%s: %d shards, %d lock copies; want %d, %d", c.ev.ID, row.Shards, row.LockCopies, c.shards, table.LockCopies(c.shards))
		}
	}
	for season, want := range map[int]int{2030: 1, 2031: 16} {
		if n, err := f.storeOver(f.db).seasonShards(ctx, season, true); err != nil || n != want {
			t.Errorf("season %d: %d shards (%v), want %d: a season keeps the count of its first event", season, n, err, want)
		}
	}

	// 60 players pick on all three: many ties, spread over the shards.
	type pick struct{ a, b, c int }
	players := map[string]pick{}
	for i := range 60 {
		u := fmt.Sprintf("pl-%02d", i)
		players[u] = pick{i % 2, (i / 2) % 2, (i / 4) % 2}
		for _, ev := range []domain.Event{small, big, next} {
			_, err := one.SubmitPrediction(ctx, domain.UserRef{ID: u, Name: "Player " + u}, ev.ID, domain.Entry{Picks: picks(ev, players[u].a, players[u].b, players[u].c)})
			mustOK(t, err)
		}
	}
	f.clock.Set(time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC))
	f.clock.Set(time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC)) // every event has started

	score := func(ev domain.Event) domain.ScoreReport {
		t.Helper()
		for range 20 {
			r, err := sixteen.ScoreEvent(ctx, ev.ID, false)
			mustOK(t, err)
			if r.Complete {
				return r
			}
		}
		t.Fatalf("%s: not complete after 20 calls", ev.ID)
		return domain.ScoreReport{}
	}
	win := func(ev domain.Event, match, team int) {
		t.Helper()
		_, err := one.SetResult(ctx, ev.ID, ev.Matches[match].ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(team)})
		mustOK(t, err)
	}
	points := func(p pick, winners ...int) int {
		n := 0
		for i, w := range winners {
			if w >= 0 && []int{p.a, p.b, p.c}[i] == w {
				n += []int{10, 5, 3}[i]
			}
		}
		return n
	}

	// Live, then final, on both kinds.
	for _, ev := range []domain.Event{small, big} {
		win(ev, 0, 1)
		if r := score(ev); r.Final || r.PredictionsScored != 60 {
			t.Fatalf("%s live pass: %+v", ev.ID, r)
		}
		e, err := one.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if e.Stored != domain.StateBroadcast || e.ScoredMatches != 1 || !e.LeaderboardVisible() {
			t.Fatalf("%s after a live pass: %s, %d matches counted", ev.ID, e.Stored, e.ScoredMatches)
		}
		win(ev, 1, 0)
		win(ev, 2, 1)
		if r := score(ev); !r.Final || r.PredictionsScored != 60 {
			t.Fatalf("%s final pass: %+v", ev.ID, r)
		}
	}
	win(next, 0, 0)
	win(next, 1, 1)
	win(next, 2, 0)
	score(next)

	type row struct {
		user         string
		points, rank int
	}
	expect := func(pointsOf func(p pick) int) []row {
		var rows []row
		for u, p := range players {
			rows = append(rows, row{user: u, points: pointsOf(p)})
		}
		slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(b.points, a.points), cmp.Compare(a.user, b.user)) })
		for i := range rows {
			rows[i].rank = i + 1
			if i > 0 && rows[i].points == rows[i-1].points {
				rows[i].rank = rows[i-1].rank
			}
		}
		return rows
	}
	event2030 := expect(func(p pick) int { return points(p, 1, 0, 1) })
	event2031 := expect(func(p pick) int { return points(p, 0, 1, 0) })
	season2030 := expect(func(p pick) int { return 2 * points(p, 1, 0, 1) })

	// A leaderboard read page by page through its cursors, by a store that has not read the
	// event (its first page learns the count) at either setting.
	leaderboard := func(t *testing.T, s *Store, ev domain.Event) ([]row, []int) {
		t.Helper()
		var got []row
		var calls []int
		cctx, cost := ddb.WithCost(ctx)
		_, page, err := s.GetEventWithLeaderboard(cctx, ev.ID, 13, true)
		mustOK(t, err)
		for {
			calls = append(calls, cost.Snapshot().Calls)
			for _, p := range page.Items {
				got = append(got, row{p.User.ID, *p.Points, *p.Rank})
			}
			if !page.HasNext {
				return got, calls
			}
			cctx, cost = ddb.WithCost(ctx)
			page, err = s.EventLeaderboard(cctx, ev, 13, page.EndCursor(), true)
			mustOK(t, err)
		}
	}
	for _, c := range []struct {
		name   string
		ev     domain.Event
		want   []row
		shards int
	}{{"OneShard", small, event2030, 1}, {"SixteenShards", big, event2030, 16}, {"NextSeason", next, event2031, 16}} {
		t.Run("Leaderboard"+c.name, func(t *testing.T) {
			for _, reader := range []int{1, 16} {
				got, calls := leaderboard(t, f.storeOver(f.db, WithScoreShards(reader)), c.ev)
				if !slices.Equal(got, c.want) {
					t.Fatalf("read by a store at %d: pages put together\n got %v\nwant %v", reader, got, c.want)
				}
				first := 1 // the card and the top, one Query
				if c.shards > 1 {
					first = 1 + c.shards // the card's Query finds the count, then the shards
				}
				if calls[0] != first || slices.ContainsFunc(calls[1:], func(n int) bool { return n != c.shards }) {
					t.Errorf("read by a store at %d: calls per page %v; want %d, then %d", reader, calls, first, c.shards)
				}
			}
		})
	}
	t.Run("RanksAndPickCounts", func(t *testing.T) {
		for _, ev := range []domain.Event{small, big} {
			e, err := one.GetEvent(ctx, ev.ID)
			mustOK(t, err)
			for i, m := range e.Matches {
				want := make([]int, len(m.Teams))
				for _, p := range players {
					want[[]int{p.a, p.b, p.c}[i]]++
				}
				if !slices.Equal(m.PickCounts, want) {
					t.Errorf("%s match %d: pick counts %v, want %v", ev.ID, i+1, m.PickCounts, want)
				}
			}
			for _, r := range event2030[:10] {
				p, err := one.GetPrediction(ctx, r.user, ev.ID, true)
				mustOK(t, err)
				if p.Rank == nil || *p.Rank != r.rank {
					t.Errorf("%s: %s's rank %v, want %d", ev.ID, r.user, deref(p.Rank), r.rank)
				}
			}
		}
	})
	t.Run("StandingsOfEachSeason", func(t *testing.T) {
		for _, c := range []struct {
			season, shards int
			want           []row
		}{{2030, 1, season2030}, {2031, 16, event2031}} {
			s := f.storeOver(f.db) // a store that has not read the season
			var got []row
			var calls []int
			after := ""
			for {
				cctx, cost := ddb.WithCost(ctx)
				page, err := s.Standings(cctx, c.season, 17, after)
				mustOK(t, err)
				calls = append(calls, cost.Snapshot().Calls)
				for _, st := range page.Items {
					got = append(got, row{st.User.ID, st.Points, *st.Rank})
				}
				if !page.HasNext {
					break
				}
				after = page.EndCursor()
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("season %d: pages put together\n got %v\nwant %v", c.season, got, c.want)
			}
			first := 1
			if c.shards > 1 {
				first = 1 + c.shards // the season's Query finds the count, then the shards
			}
			if calls[0] != first || slices.ContainsFunc(calls[1:], func(n int) bool { return n != c.shards }) {
				t.Errorf("season %d: calls per page %v; want %d, then %d", c.season, calls, first, c.shards)
			}
			for _, r := range c.want[:5] {
				u, _, err := s.GetUser(ctx, r.user, 5, false)
				mustOK(t, err)
				for _, st := range u.Standings {
					if st.Season == c.season && (st.Rank == nil || *st.Rank != r.rank) {
						t.Errorf("season %d: %s's profile rank %v, want %d", c.season, r.user, deref(st.Rank), r.rank)
					}
				}
			}
		}
	})
}

// TestOneShardIsTheSeedsLayout: with one shard, an event's card and the top of its
// leaderboard are one Query of its index partition, a standings page is one Query, and a
// submit checks one lock item.
func TestOneShardIsTheSeedsLayout(t *testing.T) {
	t.Parallel()
	f := newFixtureShards(t, 1)
	ctx := ctxT(t)
	f.clock.Set(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	ev := f.createEvent("2030-02-10-seed-layout", 20, standardCard())
	cctx, cost := ddb.WithCost(ctx)
	_, err := f.s.SubmitPrediction(cctx, domain.UserRef{ID: "sub", Name: "Sub"}, ev.ID, domain.Entry{Picks: picks(ev, 0, 0, 0)})
	mustOK(t, err)
	if snap := cost.Snapshot(); snap.Operations["TransactWriteItems"] != 1 || snap.MaxTransactionItems != 3 {
		t.Errorf("a submit: %v, largest transaction %d items; want one of 3 (the lock item, the prediction, the profile)", snap.Operations, snap.MaxTransactionItems)
	}
	if n := f.countPartition(table.LockPK(table.EventID(ev.ID), 0), table.LockSK); n != 1 || f.getRaw(table.LockPK(table.EventID(ev.ID), 1), table.LockSK) != nil {
		t.Errorf("%d lock items at copy 0, and one at copy 1: want one lock item in all", n)
	}
	f.seedPredictions(ev, 0, 300, nil)
	f.clock.Set(time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC))
	f.lockAndResult(ev, 0, 1, 0)
	f.score(ev)

	s := f.storeOver(f.db) // nothing known
	cctx, cost = ddb.WithCost(ctx)
	e, page, err := s.GetEventWithLeaderboard(cctx, ev.ID, 50, false)
	mustOK(t, err)
	if snap := cost.Snapshot(); snap.Calls != 1 || snap.Operations["Query"] != 1 || len(e.Matches) != 3 || len(page.Items) != 50 || !page.HasNext {
		t.Errorf("the scored event with its top 50: %d calls %v, %d matches, %d rows", snap.Calls, snap.Operations, len(e.Matches), len(page.Items))
	}
	cctx, cost = ddb.WithCost(ctx)
	st, err := s.Standings(cctx, 2030, 50, "")
	mustOK(t, err)
	if snap := cost.Snapshot(); snap.Calls != 1 || len(st.Items) != 50 {
		t.Errorf("a standings page: %d calls, %d rows; want one Query", snap.Calls, len(st.Items))
	}
	if got := f.countGSI(table.EventPK(table.EventID(ev.ID)), table.ScoreFirst); got != 301 {
		t.Errorf("the event's index partition holds %d scored predictions, want 301 (they follow the card there)", got)
	}
}

// TestScoringPacesItself scores an event of one shard through the AWS-faithful engine with
// partitions that take 100 write units a second: a store that paces itself to them is never
// throttled. The control, a store that assumes AWS's 1,000, runs against an engine whose
// clock stands still (its buckets never refill), so that its throttling does not hang on how
// fast DynamoDB Local is on a loaded machine: it must be throttled before the event is
// scored.
func TestScoringPacesItself(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		pace    int
		control bool
	}{{"PacedToThePartitions", 100, false}, {"ControlPacedTenTimesFaster", 1000, true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixtureShards(t, 1)
			ctx := ctxT(t)
			ev := f.createEvent("2030-02-10-paced", 20, standardCard())
			f.seedPredictions(ev, 0, 150, nil)
			f.putRaw(seasonUsers(t, 150))
			f.clock.Set(time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC))
			f.lockAndResult(ev, 0, 1, 0)
			cfg := awsfaithful.Config{Capacity: capacity.Uniform(capacity.Rate{Read: 3000, Write: 100})}
			if c.control {
				frozen := time.Now()
				cfg.Now = func() time.Time { return frozen }
			}
			eng := awsfaithful.New(t, cfg)
			s := f.storeOver(eng.Client(t, ddb.CostOption, ddb.RetryOption, dynamotest.PatientAttempts), WithPartitionThroughput(c.pace, 3000))
			for {
				r, err := s.ScoreEvent(ctx, ev.ID, false)
				if c.control && domain.ErrorCode(err) == domain.CodeUnavailable {
					break // throttled beyond the retries
				}
				mustOK(t, err)
				if r.Complete {
					break
				}
			}
			var busiest float64
			for p, u := range eng.Used() {
				if p.Index != "" {
					busiest = max(busiest, u.Write)
				}
			}
			throttled := eng.Faults().Throttled
			t.Logf("%s: %d requests throttled, the busiest index partition took %.0f write units", c.name, throttled, busiest)
			if (throttled > 0) != c.control {
				t.Errorf("%d requests throttled; want throttling %v", throttled, c.control)
			}
			if !c.control && busiest < 250 {
				t.Errorf("the busiest index partition took %.0f write units: not enough to need pacing", busiest)
			}
		})
	}
}

// seasonUsers are the profiles of players pl-00000… as Register writes them.
func seasonUsers(t *testing.T, n int) []map[string]types.AttributeValue {
	var items []map[string]types.AttributeValue
	for i := range n {
		items = append(items, userItem(t, fmt.Sprintf("pl-%05d", i)))
	}
	return items
}
