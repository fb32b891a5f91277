package dynamo

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// rankedRow is an expected leaderboard or standings row.
type rankedRow struct {
	user   string
	points int
	rank   int
}

// expectRanking sorts rows highest first, ties by user id, and ranks them 1, 2, 2, 4.
func expectRanking(points map[string]int) []rankedRow {
	var rows []rankedRow
	for u, p := range points {
		rows = append(rows, rankedRow{user: u, points: p})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].points != rows[j].points {
			return rows[i].points > rows[j].points
		}
		return rows[i].user < rows[j].user
	})
	var r domain.Ranker
	for i := range rows {
		rows[i].rank = r.Next(rows[i].points)
	}
	return rows
}

func predRows(ps []domain.Prediction) []rankedRow {
	out := make([]rankedRow, len(ps))
	for i, p := range ps {
		out[i] = rankedRow{user: p.User.ID, points: -1, rank: -1}
		if p.Points != nil {
			out[i].points = *p.Points
		}
		if p.Rank != nil {
			out[i].rank = *p.Rank
		}
	}
	return out
}

func standingRows(ss []domain.Standing) []rankedRow {
	out := make([]rankedRow, len(ss))
	for i, s := range ss {
		out[i] = rankedRow{user: s.User.ID, points: s.Points, rank: -1}
		if s.Rank != nil {
			out[i].rank = *s.Rank
		}
	}
	return out
}

// TestPagesOverOneMegabyte fills partitions past DynamoDB's 1 MB page limit (DynamoDB Local
// applies it) and checks that every read follows LastEvaluatedKey instead of silently
// returning a truncated list.
func TestPagesOverOneMegabyte(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	s := f.s

	t.Run("ScoreEventAndLeaderboard", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		// 150 predictions of ~12 KB: 1.8 MB in the event's index partition.
		const players, pad = 150, 12 << 10
		ev := f.createEvent("2030-03-20-one-megabyte", 20, standardCard())
		items := make([]map[string]types.AttributeValue, players)
		want := map[string]int{}
		var users []string
		for i := range items {
			user := fmt.Sprintf("mb-%03d", i)
			teams := []int{i % 2, i / 2 % 2, i / 4 % 2}
			items[i] = predictionItemPicks(t, f.shards, user, ev, teams, nil, pad)
			want[user] = 10*(1-teams[0]) + 5*(1-teams[1]) + 3*(1-teams[2]) // results: team 0 wins everything
			users = append(users, user)
		}
		f.putRaw(items)
		addPredictionCounts(t, f.db, f.table, ev.ID, users)
		f.lockAndResult(ev, 0, 0, 0)

		cctx, cost := ddb.WithCost(ctx)
		report, err := s.ScoreEvent(cctx, ev.ID, false)
		mustOK(t, err)
		if report.PredictionsScored != players || report.StandingsChanged != players {
			t.Errorf("report %+v, want %d predictions and standings", report, players)
		}
		if n := f.countEventGSI(ev, table.ScoreFirst); n != players {
			t.Errorf("%d scored predictions in the index, want %d", n, players)
		}
		if n := f.countEventGSI(ev, table.PendingKeyPrefix); n != 0 {
			t.Errorf("%d predictions left unscored", n)
		}
		if q := cost.Snapshot().Operations["Query"]; q < 3 { // ≥2 pages of the partition, then the unscored check
			t.Errorf("scoring made %d Query calls: it cannot have read past the first 1 MB", q)
		}

		// The first page of 100 rows is 1.2 MB: one Query page cannot hold it.
		lctx, lcost := ddb.WithCost(ctx)
		e, page, err := s.GetEventWithLeaderboard(lctx, ev.ID, 100, true)
		mustOK(t, err)
		if e.Stored != domain.StateScored || len(e.Matches) != 3 {
			t.Fatalf("event %s with %d matches", e.Stored, len(e.Matches))
		}
		if calls := lcost.Snapshot().Calls; calls < 2 {
			t.Errorf("first leaderboard page took %d call(s); 1.2 MB needs at least 2", calls)
		}
		got := predRows(page.Items)
		if !page.HasNext || len(got) != 100 {
			t.Fatalf("first page: %d rows, hasNext %v", len(got), page.HasNext)
		}
		rest, err := s.EventLeaderboard(ctx, ev, 100, page.EndCursor(), true)
		mustOK(t, err)
		if rest.HasNext {
			t.Error("hasNext after the last row")
		}
		got = append(got, predRows(rest.Items)...)
		if exp := expectRanking(want); !slices.Equal(got, exp) {
			t.Errorf("leaderboard differs from the expected ranking\n got %v\nwant %v", got, exp)
		}
	})

	t.Run("Standings", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		// 60 standings of ~25 KB (1.5 MB) in season 2031; points with ties.
		const players, pad = 60, 25 << 10
		items := make([]map[string]types.AttributeValue, players)
		want := map[string]int{}
		for i := range items {
			user := fmt.Sprintf("st-%03d", i)
			want[user] = 100 + (i*7)%23
			items[i] = standingItem(t, f.shards, user, 2031, want[user], pad)
		}
		f.putRaw(items)
		cctx, cost := ddb.WithCost(ctx)
		page, err := s.Standings(cctx, 2031, 50, "")
		mustOK(t, err)
		if calls := cost.Snapshot().Calls; calls < 2 {
			t.Errorf("a 1.25 MB page took %d call(s)", calls)
		}
		if len(page.Items) != 50 || !page.HasNext {
			t.Fatalf("first page: %d rows, hasNext %v", len(page.Items), page.HasNext)
		}
		rest, err := s.Standings(ctx, 2031, 50, page.EndCursor())
		mustOK(t, err)
		got := append(standingRows(page.Items), standingRows(rest.Items)...)
		if exp := expectRanking(want); rest.HasNext || !slices.Equal(got, exp) {
			t.Errorf("standings differ from the expected ranking (hasNext %v)\n got %v\nwant %v", rest.HasNext, got, exp)
		}
	})

	t.Run("UserPredictions", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		// One profile: 40 unscored predictions of ~30 KB (1.2 MB) on the newest events, then
		// three scored ones that another viewer sees.
		const user, pad = "mb-profile", 30 << 10
		items := []map[string]types.AttributeValue{userItem(t, user)}
		var unscored, scored []string
		for i := 0; i < 40; i++ {
			ev := domain.Event{ID: fmt.Sprintf("2030-06-%02d-upcoming", i%28+1), StartsAt: time.Date(2030, 6, i%28+1, 20, 0, 0, 0, time.UTC)}
			ev.ID += fmt.Sprintf("-%d", i)
			items = append(items, predictionItem(t, f.shards, user, ev, nil, pad))
			unscored = append(unscored, ev.ID)
		}
		for i := 1; i <= 3; i++ {
			ev := domain.Event{ID: fmt.Sprintf("2030-01-%02d-scored", i), StartsAt: time.Date(2030, 1, i, 20, 0, 0, 0, time.UTC)}
			items = append(items, predictionItem(t, f.shards, user, ev, ptr(i), 0))
			scored = append(scored, ev.ID)
		}
		f.putRaw(items)
		slices.Sort(unscored)
		slices.Reverse(unscored)
		slices.Reverse(scored) // newest first

		cctx, cost := ddb.WithCost(ctx)
		_, page, err := s.GetUser(cctx, user, 2, false)
		mustOK(t, err)
		if calls := cost.Snapshot().Calls; calls < 2 {
			t.Errorf("skipping 1.2 MB of unscored predictions took %d call(s)", calls)
		}
		if got := predEvents(page.Items); !slices.Equal(got, scored[:2]) || !page.HasNext {
			t.Fatalf("other viewer's first page %v (hasNext %v), want %v", got, page.HasNext, scored[:2])
		}
		rest, err := s.UserPredictions(ctx, user, 2, page.EndCursor(), false)
		mustOK(t, err)
		if got := predEvents(rest.Items); !slices.Equal(got, scored[2:]) || rest.HasNext {
			t.Errorf("other viewer's second page %v (hasNext %v), want %v", got, rest.HasNext, scored[2:])
		}

		_, own, err := s.GetUser(ctx, user, 100, true)
		mustOK(t, err)
		if got, want := predEvents(own.Items), append(slices.Clone(unscored), scored...); !slices.Equal(got, want) || own.HasNext {
			t.Errorf("owner's page: %d rows (hasNext %v), want all %d", len(got), own.HasNext, len(want))
		}
		first, err := s.UserPredictions(ctx, user, 30, own.Cursors[0], true)
		mustOK(t, err)
		if got := predEvents(first.Items); !slices.Equal(got, unscored[1:31]) || !first.HasNext {
			t.Errorf("owner's page after the first row: %d rows, hasNext %v", len(got), first.HasNext)
		}
	})
}
