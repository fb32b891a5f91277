package bench

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/bench/frontend"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// Screen 8: a private league's standings in a season. The viewer owns a league of each size
// in leagueSizes (those the players allow), built through the store as players build them
// (CreateLeague, then a JoinLeague per member); the leagues of every shard count show the
// same leagues, in their own season.
var leagueSizes = []int{10, 100, domain.MaxLeagueMembers}

// group is one league of screen 8.
type group struct {
	id      string
	members int
}

// loadLeagues builds the leagues of screen 8, of sizes members each (nil: leagueSizes, those
// players allow).
func (e *env) loadLeagues(ctx context.Context, players int, sizes []int) ([]group, error) {
	for _, n := range sizes {
		if n > players || n > domain.MaxLeagueMembers || n <= viewer {
			return nil, fmt.Errorf("a league of %d members among %d players, with the viewer p%05d", n, players, viewer)
		}
	}
	if sizes == nil {
		for _, n := range leagueSizes {
			if n <= players {
				sizes = append(sizes, n)
			}
		}
	}
	var out []group
	for _, n := range sizes {
		// The viewer owns it; players 0…n-1 but the viewer join it.
		owner := domain.UserRef{ID: playerID(viewer), Name: playerName(viewer)}
		lg, err := e.direct.store.CreateLeague(ctx, owner, fmt.Sprintf("League of %d", n))
		if err != nil {
			return nil, fmt.Errorf("league of %d: %w", n, err)
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(8)
		for p := range n {
			if p == viewer {
				continue
			}
			g.Go(func() error {
				_, err := e.direct.store.JoinLeague(gctx, domain.UserRef{ID: playerID(p), Name: playerName(p)}, lg.InviteCode)
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, fmt.Errorf("league of %d: %w", n, err)
		}
		out = append(out, group{id: lg.ID, members: n})
	}
	return out, nil
}

// leagueProbes is screen 8 for each league, in l's season.
func (e *env) leagueProbes(l *league, groups []group) []probe {
	const first = 50
	var ps []probe
	for _, lg := range groups {
		ps = append(ps, probe{
			shards: l.shards, screen: 8, name: "League standings", size: fmt.Sprintf("%d of %d members", min(first, lg.members), lg.members),
			request: fixed(request(frontend.LeagueStandings, map[string]any{"id": lg.id, "season": l.season, "first": first}), e.playerToken(viewer)),
			check: func(d json.RawMessage) error {
				return all(count(d, min(first, lg.members), "league", "standings", "edges"), equal(d, float64(lg.members), "league", "memberCount"))
			},
			floor: func(ctx context.Context, db *dynamodb.Client, _ int) (int, error) {
				return e.floorLeague(ctx, db, lg.id, l.season)
			},
			floorRows: 1 + 2*lg.members, // the league, its member rows, their standings
		})
	}
	return ps
}

// floorLeague is screen 8: a consistent Query of the league's partition (the league and its
// member rows), then the members' standings in season by key, BatchGetItems of 100 keys
// (DynamoDB's most), all at once, eventually consistent: 1 + ⌈members/100⌉ calls.
func (e *env) floorLeague(ctx context.Context, db *dynamodb.Client, lid string, season int) (int, error) {
	rows, err := query(ctx, db, &dynamodb.QueryInput{
		TableName:                 aws.String(e.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": table.AttrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(table.LeaguePartition(lid))},
		ConsistentRead:            aws.Bool(true),
	}, nil)
	if err != nil {
		return len(rows), err
	}
	var keys []map[string]types.AttributeValue
	for _, it := range rows {
		if uid := str(it, "userId"); uid != "" { // a member row
			keys = append(keys, table.StandingKey(uid, season))
		}
	}
	var fs []func(context.Context) (int, error)
	for start := 0; start < len(keys); start += 100 {
		chunk := keys[start:min(start+100, len(keys))]
		fs = append(fs, func(ctx context.Context) (int, error) {
			out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{e.table: {Keys: chunk}}})
			if err != nil {
				return 0, err
			}
			if n := len(out.UnprocessedKeys[e.table].Keys); n > 0 {
				return 0, fmt.Errorf("league standings: %d keys unprocessed", n)
			}
			return len(out.Responses[e.table]), nil
		})
	}
	n, err := parallel(ctx, fs...)
	return len(rows) + n, err
}
