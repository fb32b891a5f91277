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
)

// Screen 8: a league's standings. The viewer owns a league of each size in leagueSizes
// (those the players allow; all of them when fewer than the smallest): built through the
// store (CreateLeague, then a JoinLeague per member), as players build them.
var leagueSizes = []int{100, domain.MaxLeagueMembers}

// Key formats of leagues, replicated from dynamo/keys.go (see keys.go).
func leaguePK(lid string) string { return "LEAGUE#" + lid }

// benchLeague is one league of screen 8.
type benchLeague struct {
	id      string
	members int
}

// loadLeagues builds the leagues of screen 8, of sizes members each (nil: leagueSizes).
func (e *env) loadLeagues(ctx context.Context, l *league, sizes []int) ([]benchLeague, error) {
	for _, n := range sizes {
		if n > l.players || n > domain.MaxLeagueMembers {
			return nil, fmt.Errorf("a league of %d members among %d players", n, l.players)
		}
	}
	if sizes == nil {
		for _, n := range leagueSizes {
			if n <= l.players {
				sizes = append(sizes, n)
			}
		}
	}
	if len(sizes) == 0 {
		sizes = []int{min(l.players, domain.MaxLeagueMembers)}
	}
	if viewer >= sizes[0] {
		return nil, fmt.Errorf("a league of %d players cannot hold the viewer p%05d", sizes[0], viewer)
	}
	var out []benchLeague
	for _, n := range sizes {
		// The viewer owns it; players 0…n-1 but the viewer join it.
		owner := domain.UserRef{ID: playerID(viewer), Name: playerName(viewer)}
		lg, err := e.store.CreateLeague(ctx, owner, fmt.Sprintf("League of %d", n))
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
				_, err := e.store.JoinLeague(gctx, domain.UserRef{ID: playerID(p), Name: playerName(p)}, lg.InviteCode)
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, fmt.Errorf("league of %d: %w", n, err)
		}
		out = append(out, benchLeague{id: lg.ID, members: n})
	}
	return out, nil
}

// leagueProbes is screen 8 for each league.
func (e *env) leagueProbes(ls []benchLeague, season int) []probe {
	const first = 50
	var ps []probe
	for _, lg := range ls {
		body := request(frontend.LeagueStandings, map[string]any{"id": lg.id, "season": season, "first": first})
		ps = append(ps, probe{
			screen: 8, name: "League standings", size: fmt.Sprintf("%d of %d members", min(first, lg.members), lg.members),
			request: func(int) ([]byte, string) { return body, e.playerToken(viewer) },
			check: func(d json.RawMessage) error {
				return all(count(d, min(first, lg.members), "league", "standings", "edges"), equal(d, float64(lg.members), "league", "memberCount"))
			},
			floor: func(ctx context.Context, _ int) (int, error) {
				return e.floorLeague(ctx, lg.id, season)
			},
			floorRows: 1 + lg.members, // the league and its member rows (with their copies of the standings)
		})
	}
	return ps
}

// floorLeague is screen 8: a consistent Query of PK = LEAGUE#<lid>, the league and its
// member rows, which carry copies of their members' season standings (the store's
// leaguecopies.go) — what ranking every member needs.
func (e *env) floorLeague(ctx context.Context, lid string, _ int) (int, error) {
	items, err := e.query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(e.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(leaguePK(lid))},
		ConsistentRead:            aws.Bool(true),
	}, always)
	return len(items), err
}
