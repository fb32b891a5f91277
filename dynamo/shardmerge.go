package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// Ranked lists (a leaderboard, a season's standings) are written across the event's or the
// season's shards (package table), each sorted by its score keys (SCORE#<inv>#<uid>: points
// high to low, ties by user id; a leaderboard whose tie-breaker answer is set,
// SCORE#<inv>#<tie-break>#<uid>: domain.CompareLeaderboard's order, table.LeaderboardSK).
// A page is read as one Query per shard, all at once, merged by score key: as many calls as
// shards whatever the page (one round trip), and exact. The keys being the list's order
// (domain.CompareStandings', or domain.CompareLeaderboard's once the answer counts; a
// table test pins each), merging by key is merging by that order, and it stays the order
// the shards are read in and the cursors point into while a pass rewrites the keys. Each
// shard is asked for as many rows as the whole page needs (first+1, so that the merge knows
// whether a next page exists): any one shard may hold the whole page. With one shard it is
// one Query.
//
// A page after a cursor continues every shard after the cursor's position, the last row's
// score key (table.Cursor.ScoreKey): `GSI_SK > <key>` is the same position in every shard,
// whichever shard that row came from. The cursor carries the list's shard count, so a page
// after it needs no read to learn it.

// scoredItem is one row of a shard page with its score key.
type scoredItem struct {
	sk   string
	item map[string]types.AttributeValue
}

// shardPage returns up to n items with score keys after `after` (a score key, or "" for the
// top) from the index partitions pks, in score-key order. One Query per partition, run at
// once; each reads at most n score rows and stops at the first key that is not a score key
// (unscored predictions sort after the scored ones). z (may be nil) weighs what was read.
func (s *Store) shardPage(ctx context.Context, pks []string, after string, n int, attrs []string, z *ddb.Sized) ([]map[string]types.AttributeValue, error) {
	perShard := make([][]scoredItem, len(pks))
	g, gctx := errgroup.WithContext(ctx)
	for i, pk := range pks {
		g.Go(func() error {
			scores := expression.Key(table.AttrGSISK).Between(expression.Value(table.ScoreFirst), expression.Value(table.ScoreLast))
			if after != "" {
				scores = expression.Key(table.AttrGSISK).GreaterThan(expression.Value(after))
			}
			q, err := s.db.NewQuery(table.IndexName, expression.Key(table.AttrGSIPK).Equal(expression.Value(pk)).And(scores), n, true, attrs...)
			if err != nil {
				return err
			}
			var rows []scoredItem
			err = s.db.QueryEach(gctx, q, func(item map[string]types.AttributeValue) (bool, error) {
				sk, _ := item[table.AttrGSISK].(*types.AttributeValueMemberS)
				if sk == nil || !strings.HasPrefix(sk.Value, table.ScoreFirst) {
					return false, nil
				}
				rows = append(rows, scoredItem{sk.Value, item})
				return len(rows) < n, nil
			})
			perShard[i] = rows
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	all := slices.Concat(perShard...)
	slices.SortFunc(all, func(a, b scoredItem) int { return strings.Compare(a.sk, b.sk) })
	out := make([]map[string]types.AttributeValue, 0, min(n, len(all)))
	for _, r := range all[:min(n, len(all))] {
		z.Add(r.item)
		out = append(out, r.item)
	}
	return out, nil
}

// cursorPosition returns the score key a ranked list's cursor points at, and the rank state
// to go on from; a nil cursor is the top of the list.
func cursorPosition(c *table.Cursor) (string, domain.Ranker, error) {
	if c == nil {
		return "", domain.Ranker{}, nil
	}
	sk, err := c.ScoreKey()
	if err != nil {
		return "", domain.Ranker{}, table.ErrBadCursor
	}
	return sk, c.Ranker(), nil
}

// leaderboardItems returns the first+1 rows of event eid's leaderboard (the event has
// shards shards) after the score key after ("": the top), in score-key order: one Query per
// shard. Without picks the rows are read without them (table.LeaderboardRowAttrs): their
// Picks are empty.
func (s *Store) leaderboardItems(ctx context.Context, eid table.EventID, shards, first int, after string, picks bool, z *ddb.Sized) ([]map[string]types.AttributeValue, error) {
	var attrs []string
	if !picks {
		attrs = table.LeaderboardRowAttrs()
	}
	items, err := s.shardPage(ctx, table.EventShardPKs(eid, shards), after, first+1, attrs, z)
	if err != nil {
		return nil, fmt.Errorf("dynamo: leaderboard %s: %w", eid, err)
	}
	return items, nil
}

// standingsShards returns the page of first rows of a season's standings (the season has
// shards shards) after cursor c (nil: the first page), ranked: one Query per shard.
func (s *Store) standingsShards(ctx context.Context, season, shards, first int, c *table.Cursor, z *ddb.Sized) (domain.Page[domain.Standing], error) {
	after, r, err := cursorPosition(c)
	if err != nil {
		return domain.Page[domain.Standing]{}, err
	}
	items, err := s.shardPage(ctx, table.SeasonShardPKs(season, shards), after, first+1, nil, z)
	if err != nil {
		return domain.Page[domain.Standing]{}, fmt.Errorf("dynamo: standings %d: %w", season, err)
	}
	return s.standingsPage(season, shards, items, first, r)
}

// standingsPage ranks items (standings in score-key order, after r's rows) into a page of
// at most first rows.
func (s *Store) standingsPage(season, shards int, items []map[string]types.AttributeValue, first int, r domain.Ranker) (domain.Page[domain.Standing], error) {
	var page domain.Page[domain.Standing]
	owner := strconv.Itoa(season)
	for _, item := range items {
		if len(page.Items) == first {
			page.HasNext = true
			break
		}
		var row table.StandingRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return domain.Page[domain.Standing]{}, fmt.Errorf("dynamo: standings %d: %w", season, err)
		}
		st := row.ToDomain()
		rank := r.Next(st.Points)
		st.Rank = &rank
		page.Items = append(page.Items, st)
		page.Cursors = append(page.Cursors, s.cursors.Encode(table.Cursor{Kind: table.CursorStandings, Owner: owner, ID: row.UserID,
			Points: r.Points, Index: r.Index, Rank: r.Rank, Shards: shards}))
	}
	return page, nil
}
