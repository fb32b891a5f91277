package dynamo

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// seedPredictions writes predictions of players from..to-1 ("pl-00000"…) for ev, scored
// with points(i) if points is not nil.
func (f *fixture) seedPredictions(ev domain.Event, from, to int, points func(i int) int) {
	f.t.Helper()
	items := make([]map[string]types.AttributeValue, 0, to-from)
	var users []string
	for i := from; i < to; i++ {
		var p *int
		if points != nil {
			p = ptr(points(i))
		}
		items = append(items, predictionItem(f.t, f.shards, fmt.Sprintf("pl-%05d", i), ev, p, 0))
		users = append(users, fmt.Sprintf("pl-%05d", i))
	}
	f.putRaw(items)
	addPredictionCounts(f.t, f.db, f.table, ev.ID, users)
}

func sameCost(a, b ddb.CostSnapshot) bool {
	return a.Calls == b.Calls && maps.Equal(a.Operations, b.Operations) &&
		a.ReadCapacityUnits != nil && b.ReadCapacityUnits != nil && *a.ReadCapacityUnits == *b.ReadCapacityUnits
}

func costString(c ddb.CostSnapshot) string {
	rcu := "nil"
	if c.ReadCapacityUnits != nil {
		rcu = fmt.Sprint(*c.ReadCapacityUnits)
	}
	return fmt.Sprintf("%d calls %v, %s RCU", c.Calls, c.Operations, rcu)
}

// TestCostOfCardAndOwnPredictionIsFlatInPlayers is the must-show test: the event screen's
// two reads (the card, the caller's own prediction) cost the same calls and the same
// consumed read capacity with 10 and with 2,000 predictions on the event.
func TestCostOfCardAndOwnPredictionIsFlatInPlayers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	card := append(standardCard(), matchSpec("Tag Team", 4), matchSpec("Ladder", 8))
	ev := f.createEvent("2030-03-20-cost-card", 20, card)
	f.submit("viewer", ev, 0, 1, 0, 1, 0)

	// The two top-level fields of the screen, resolved concurrently as gqlgen does.
	screen := func() ddb.CostSnapshot {
		t.Helper()
		cctx, cost := ddb.WithCost(ctx)
		g, gctx := errgroup.WithContext(cctx)
		g.Go(func() error {
			e, err := f.s.GetEvent(gctx, ev.ID)
			if err == nil && len(e.Matches) != len(card) {
				err = fmt.Errorf("card has %d matches", len(e.Matches))
			}
			return err
		})
		g.Go(func() error {
			p, err := f.s.GetPrediction(gctx, "viewer", ev.ID, true)
			if err == nil && len(p.Picks) != len(card) {
				err = fmt.Errorf("prediction has %d picks", len(p.Picks))
			}
			return err
		})
		mustOK(t, g.Wait())
		return cost.Snapshot()
	}
	// For contrast, what the seed's design reads: the whole partition.
	wholePartition := func() ddb.CostSnapshot {
		t.Helper()
		cctx, cost := ddb.WithCost(ctx)
		for _, pk := range table.EventShardPKs(table.EventID(ev.ID), f.shards) {
			q, err := f.s.db.NewQuery(table.IndexName, expression.Key(table.AttrGSIPK).Equal(expression.Value(pk)), 0, true)
			mustOK(t, err)
			mustOK(t, f.s.db.QueryEach(cctx, q, func(map[string]types.AttributeValue) (bool, error) { return true, nil }))
		}
		return cost.Snapshot()
	}

	f.seedPredictions(ev, 1, 10, nil)
	if n := f.countEventGSI(ev, table.PendingKeyPrefix); n != 10 {
		t.Fatalf("%d predictions, want 10", n)
	}
	with10, whole10 := screen(), wholePartition()
	f.seedPredictions(ev, 10, 2000, nil)
	if n := f.countEventGSI(ev, table.PendingKeyPrefix); n != 2000 {
		t.Fatalf("%d predictions, want 2000", n)
	}
	with2000, whole2000 := screen(), wholePartition()

	t.Logf("card + own prediction: 10 players %s; 2,000 players %s", costString(with10), costString(with2000))
	t.Logf("whole partition (the seed's filter): 10 players %s; 2,000 players %s", costString(whole10), costString(whole2000))
	// An open event dated after today has no rank table to read with the prediction.
	if with10.Calls != 2 || with10.Operations["Query"] != 1 || with10.Operations["GetItem"] != 1 {
		t.Errorf("with 10 players: %s, want one Query and one GetItem", costString(with10))
	}
	if with10.ReadCapacityUnits == nil || *with10.ReadCapacityUnits <= 0 {
		t.Fatalf("DynamoDB Local reported no read capacity: %s", costString(with10))
	}
	if !sameCost(with10, with2000) {
		t.Errorf("cost grew with players: 10 → %s, 2,000 → %s", costString(with10), costString(with2000))
	}
	if !(*whole2000.ReadCapacityUnits > *whole10.ReadCapacityUnits) {
		t.Errorf("control: reading the whole partition should cost more with more players (%s vs %s)", costString(whole10), costString(whole2000))
	}
}

// TestCostOfLeaderboardGrowsWithFirstNotPlayers: the scored event screen (card + top N) of
// an event of one shard is one Query of its index partition (the card, then the scored
// predictions); of sixteen shards, the card's Query and one Query per shard. Its cost
// depends on N, not on how many players the event has — once every shard holds a page
// (each shard is asked for N+1 rows, as any one shard may hold the whole page).
func TestCostOfLeaderboardGrowsWithFirstNotPlayers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		shards, calls int
	}{{1, 1}, {16, 17}} {
		t.Run(fmt.Sprintf("Shards%d", tt.shards), func(t *testing.T) {
			t.Parallel()
			f := newFixtureShards(t, tt.shards)
			ctx := ctxT(t)
			ev := f.createEvent("2030-03-20-cost-board", 20, standardCard())
			// Every shard holds more than the longest page read (101 rows); players added
			// later score less, so the top rows stay the same.
			players := 150 * tt.shards
			f.seedPredictions(ev, 0, players, func(i int) int { return 900 - i%50 })
			for _, pk := range table.EventShardPKs(table.EventID(ev.ID), tt.shards) {
				if n := f.countGSI(pk, table.ScoreFirst); n <= 101 {
					t.Fatalf("partition %s holds %d players: not a full page", pk, n)
				}
			}
			f.setStoredState(ev, domain.StateScored)

			board := func(first int) ddb.CostSnapshot {
				t.Helper()
				s := f.storeOver(f.db) // a store that has not read the event: its first read
				cctx, cost := ddb.WithCost(ctx)
				e, page, err := s.GetEventWithLeaderboard(cctx, ev.ID, first, true)
				mustOK(t, err)
				if len(e.Matches) != 3 || len(page.Items) != first || !page.HasNext {
					t.Fatalf("first %d: %d matches, %d rows, hasNext %v", first, len(e.Matches), len(page.Items), page.HasNext)
				}
				if tt.shards == 1 {
					return cost.Snapshot()
				}
				// A store that knows the event's shard count reads the card and the shards
				// at once: the same calls, in one round trip.
				cctx, cost = ddb.WithCost(ctx)
				_, page, err = s.GetEventWithLeaderboard(cctx, ev.ID, first, true)
				mustOK(t, err)
				if len(page.Items) != first {
					t.Fatalf("first %d, read again: %d rows", first, len(page.Items))
				}
				return cost.Snapshot()
			}
			small, large := board(10), board(100)
			f.seedPredictions(ev, players, players+500, func(i int) int { return 100 + i%500 })
			smallMore, largeMore := board(10), board(100)

			t.Logf("first=10: %d players %s, %d players %s", players, costString(small), players+500, costString(smallMore))
			t.Logf("first=100: %d players %s, %d players %s", players, costString(large), players+500, costString(largeMore))
			for _, c := range []ddb.CostSnapshot{small, large, smallMore, largeMore} {
				if c.Calls != tt.calls || c.Operations["Query"] != tt.calls || c.ReadCapacityUnits == nil {
					t.Errorf("want %d Queries with capacity: %s", tt.calls, costString(c))
				}
			}
			if !sameCost(small, smallMore) || !sameCost(large, largeMore) {
				t.Errorf("cost grew with players")
			}
			if !(*large.ReadCapacityUnits > *small.ReadCapacityUnits) {
				t.Errorf("cost did not grow with first: %s vs %s", costString(small), costString(large))
			}
		})
	}
}

// TestTransactionsStayWithin100Items runs every batched write over more than 100 items and
// checks the largest transaction it sent.
func TestTransactionsStayWithin100Items(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	s := f.s

	t.Run("ScoreEventAndEventRename", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		const players = 130
		ev := f.createEvent("2030-03-20-many-players", 20, standardCard())
		f.seedPredictions(ev, 0, players, nil)
		f.lockAndResult(ev, 0, 1, 0) // team 0 picks everywhere: 13 points each

		cctx, cost := ddb.WithCost(ctx)
		report, err := s.ScoreEvent(cctx, ev.ID, false)
		mustOK(t, err)
		snap := cost.Snapshot()
		if snap.MaxTransactionItems > ddb.MaxTransactItems || snap.MaxTransactionItems == 0 {
			t.Errorf("largest scoring transaction had %d items", snap.MaxTransactionItems)
		}
		if report.PredictionsScored != players || report.StandingsChanged != players || report.Transactions != snap.Operations["TransactWriteItems"]-1 || report.Transactions < 3 { // and one marks it SCORED
			t.Errorf("report %+v, cost %s", report, costString(snap))
		}
		page, err := s.Standings(ctx, 2030, 100, "")
		mustOK(t, err)
		rest, err := s.Standings(ctx, 2030, 100, page.EndCursor())
		mustOK(t, err)
		if len(page.Items)+len(rest.Items) != players || rest.HasNext || page.Items[0].Points != 13 || *rest.Items[len(rest.Items)-1].Rank != 1 {
			t.Errorf("standings: %d + %d rows", len(page.Items), len(rest.Items))
		}

		again, err := s.ScoreEvent(ctx, ev.ID, false)
		mustOK(t, err)
		if again.PredictionsScored != 0 || again.StandingsChanged != 0 || again.Transactions != 0 {
			t.Errorf("re-run changed something: %+v", again)
		}

		rctx, rcost := ddb.WithCost(ctx)
		_, err = s.UpdateEvent(rctx, ev.ID, domain.EventUpdate{Name: ptr("Many Players Renamed")})
		mustOK(t, err)
		if m := rcost.Snapshot().MaxTransactionItems; m > ddb.MaxTransactItems || m == 0 {
			t.Errorf("largest rename transaction had %d items", m)
		}
		_, lb, err := s.GetEventWithLeaderboard(ctx, ev.ID, 100, true)
		mustOK(t, err)
		more, err := s.EventLeaderboard(ctx, ev, 100, lb.EndCursor(), true)
		mustOK(t, err)
		for _, p := range append(lb.Items, more.Items...) {
			if p.Event.Name != "Many Players Renamed" {
				t.Fatalf("prediction of %s still carries %q", p.User.ID, p.Event.Name)
			}
		}
		if n := len(lb.Items) + len(more.Items); n != players {
			t.Errorf("leaderboard has %d rows", n)
		}
	})

	t.Run("RegisterRenameOverManyItems", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		const user, events = "many-events", 150
		items := []map[string]types.AttributeValue{userItem(t, user), standingItem(t, f.shards, user, 2029, 10, 0)}
		for i := 0; i < events; i++ {
			ev := domain.Event{ID: fmt.Sprintf("2030-%02d-%02d-show-%d", i%12+1, i%28+1, i), StartsAt: t0}
			items = append(items, predictionItem(t, f.shards, user, ev, nil, 0))
		}
		f.putRaw(items)
		cctx, cost := ddb.WithCost(ctx)
		u, err := s.Register(cctx, user, "Renamed Many")
		mustOK(t, err)
		snap := cost.Snapshot()
		if snap.MaxTransactionItems > ddb.MaxTransactItems || snap.MaxTransactionItems == 0 || snap.Operations["TransactWriteItems"] < 2 {
			t.Errorf("rename of %d items: %s, largest transaction %d", events+1, costString(snap), snap.MaxTransactionItems)
		}
		if u.Name != "Renamed Many" || len(u.Standings) != 1 || u.Standings[0].User.Name != "Renamed Many" {
			t.Errorf("returned %+v", u)
		}
		copies := f.nameCopies(user)
		if len(copies) != events+1 {
			t.Fatalf("%d copies", len(copies))
		}
		for sk, c := range copies {
			if c != "Renamed Many@2" {
				t.Fatalf("%s: %s", sk, c)
			}
		}
	})

	t.Run("StoreRefusesOversizedTransactions", func(t *testing.T) {
		t.Parallel()
		items := make([]types.TransactWriteItem, ddb.MaxTransactItems+1)
		for i := range items {
			items[i] = types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(f.table), Key: table.Key("X", fmt.Sprint(i)), ConditionExpression: aws.String("attribute_not_exists(PK)"),
			}}
		}
		cctx, cost := ddb.WithCost(context.Background())
		if err := s.db.Transact(cctx, items); err == nil {
			t.Fatal("a transaction of 101 items was accepted")
		}
		if c := cost.Snapshot().Calls; c != 0 {
			t.Errorf("%d calls sent", c)
		}
	})
}

// TestCostOfAScoredCardWithMyRankIsTwoCalls: once scored, the card screen with the caller's
// rank is the card's Query and one BatchGetItem of the prediction and the event's rank
// table, in parallel: one round trip, as before the event was scored.
func TestCostOfAScoredCardWithMyRankIsTwoCalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	ev := f.createEvent("2030-05-02-rank-cost", 20, standardCard())
	f.submit("r-best", ev, 0, 0, 0)
	f.submit("r-next", ev, 1, 1, 1)
	f.clock.Set(time.Date(2030, 5, 3, 0, 0, 0, 0, time.UTC)) // the day after
	f.lockAndResult(ev, 0, 0, 0)
	f.score(ev)
	cctx, cost := ddb.WithCost(ctx)
	g, gctx := errgroup.WithContext(cctx)
	g.Go(func() error { _, err := f.s.GetEvent(gctx, ev.ID); return err })
	var p domain.Prediction
	g.Go(func() error {
		var err error
		p, err = f.s.GetPrediction(gctx, "r-next", ev.ID, true)
		return err
	})
	mustOK(t, g.Wait())
	snap := cost.Snapshot()
	if snap.Calls != 2 || snap.Operations["Query"] != 1 || snap.Operations["BatchGetItem"] != 1 {
		t.Errorf("scored card + my rank: %s, want one Query and one BatchGetItem", costString(snap))
	}
	if p.Rank == nil || *p.Rank != 2 {
		t.Errorf("rank %v, want 2", p.Rank)
	}
}

// TestRankOfAnEventScoredBeforeItsDate: an event dated after today, locked early and
// scored, still gives the caller's rank (its table read once the prediction is seen
// scored).
func TestRankOfAnEventScoredBeforeItsDate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ev := f.createEvent("2030-05-04-early", 20, standardCard())
	f.submit("e-best", ev, 0, 0, 0)
	f.submit("e-next", ev, 1, 1, 1)
	f.lockAndResult(ev, 0, 0, 0) // the fixture's clock is months before the event's date
	f.score(ev)
	p, err := f.s.GetPrediction(ctxT(t), "e-next", ev.ID, true)
	mustOK(t, err)
	if p.Rank == nil || *p.Rank != 2 {
		t.Errorf("rank %v, want 2", p.Rank)
	}
}
