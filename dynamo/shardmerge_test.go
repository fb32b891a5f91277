package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// ranked is one row of a ranked list as the test expects it.
type ranked struct {
	user   string
	points int
	rank   int
}

// expectRanks sorts rows highest points first, ties by user id, and ranks them 1, 2, 2, 4.
func expectRanks(rows []ranked) []ranked {
	slices.SortFunc(rows, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.points, a.points), cmp.Compare(a.user, b.user))
	})
	for i := range rows {
		rows[i].rank = i + 1
		if i > 0 && rows[i].points == rows[i-1].points {
			rows[i].rank = rows[i-1].rank
		}
	}
	return rows
}

// TestShardPages reads leaderboards and standings written across one partition and across
// sixteen: every page of every size is the exact slice of the one sorted list, ranks with
// ties carry across pages and shards, every page costs one call per shard, and unscored
// predictions in the shards are never shown.
func TestShardPages(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 16} {
		t.Run(fmt.Sprintf("Shards%d", shards), func(t *testing.T) {
			t.Parallel()
			testShardPages(t, shards)
		})
	}
}

func testShardPages(t *testing.T, shards int) {
	f := newFixtureShards(t, shards)
	ev := f.createEvent("2030-03-10-shard-show", 20, standardCard())
	rng := rand.New(rand.NewPCG(12, 12))

	// 300 players: points from a small range (many ties, ties across shards), a few
	// unscored; and 40 players whose ids all fall in shard 3 holding the top scores (one
	// shard holds more than a page).
	var items []map[string]types.AttributeValue
	var board, standings []ranked
	add := func(user string, points int, scored bool) {
		var p *int
		if scored {
			p = ptr(points)
			board = append(board, ranked{user: user, points: points})
		}
		items = append(items, predictionItem(t, f.shards, user, ev, p, 0))
		items = append(items, standingItem(t, f.shards, user, 2030, points, 0))
		standings = append(standings, ranked{user: user, points: points})
	}
	for i := range 300 {
		add(fmt.Sprintf("p-%03d", i), rng.IntN(12), i%29 != 0)
	}
	for i, n := 0, 0; n < 40; i++ {
		if u := fmt.Sprintf("top-%d", i); table.UserID(u).Shard(shards) == 3%shards {
			add(u, 50+n%7, true)
			n++
		}
	}
	f.putRaw(items)
	board, standings = expectRanks(board), expectRanks(standings)

	type page struct {
		rows    []ranked
		hasNext bool
		end     string
	}
	check := func(t *testing.T, want []ranked, read func(ctx context.Context, first int, after string) page) {
		for _, first := range []int{13, 50, 100} { // 13: pages end inside groups of ties
			var got []ranked
			after := ""
			for n := 0; ; n++ {
				ctx, cost := ddb.WithCost(ctxT(t))
				p := read(ctx, first, after)
				if c := cost.Snapshot().Calls; c != shards {
					t.Fatalf("first %d, page %d: %d calls, want %d (one Query per shard)", first, n+1, c, shards)
				}
				got = append(got, p.rows...)
				if more := len(got) < len(want); p.hasNext != more || (more && len(p.rows) != first) {
					t.Fatalf("first %d, page %d: %d rows, hasNext %v with %d of %d read", first, n+1, len(p.rows), p.hasNext, len(got), len(want))
				}
				if !p.hasNext {
					break
				}
				after = p.end
			}
			if !slices.Equal(got, want) {
				t.Fatalf("first %d: the pages put together differ from the sorted list\n got %v\nwant %v", first, got, want)
			}
		}
	}

	t.Run("Leaderboard", func(t *testing.T) {
		check(t, board, func(ctx context.Context, first int, after string) page {
			p, err := f.s.EventLeaderboard(ctx, ev, first, after, true)
			mustOK(t, err)
			var rows []ranked
			for _, it := range p.Items {
				rows = append(rows, ranked{it.User.ID, *it.Points, *it.Rank})
			}
			return page{rows, p.HasNext, p.EndCursor()}
		})
	})
	t.Run("Standings", func(t *testing.T) {
		check(t, standings, func(ctx context.Context, first int, after string) page {
			var c *table.Cursor
			if after != "" {
				d, err := f.s.cursors.Decode(after, table.CursorStandings, "2030")
				mustOK(t, err)
				c = &d
			}
			p, err := f.s.standingsShards(ctx, 2030, shards, first, c, nil)
			mustOK(t, err)
			var rows []ranked
			for _, it := range p.Items {
				rows = append(rows, ranked{it.User.ID, it.Points, *it.Rank})
			}
			return page{rows, p.HasNext, p.EndCursor()}
		})
	})
	t.Run("EmptyList", func(t *testing.T) {
		ctx, cost := ddb.WithCost(ctxT(t))
		p, err := f.s.standingsShards(ctx, 2031, shards, 50, nil, nil)
		mustOK(t, err)
		if len(p.Items) != 0 || p.HasNext || cost.Snapshot().Calls != shards {
			t.Fatalf("%d rows, hasNext %v, %d calls", len(p.Items), p.HasNext, cost.Snapshot().Calls)
		}
	})
}
