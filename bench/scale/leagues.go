package scale

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// seedLeagues makes every one of n players a member of k leagues (RecordOptions.Leagues)
// as k joins would have — a member row holding copies of the standings (none yet) in each
// league's partition and the player's league item (@LEAGUES: the ids, a rev) — written raw,
// so that scoring, which reads the league item and writes one copy per league, is recorded
// with leagues. Key formats are dynamo/keys.go's and dynamo/leagues.go's (memberRow,
// leaguesRow).
//
// Each player's leagues are their own here (ids holding the player's id): the model then
// counts a league's partition as the player's, uncontended. That is what it is for
// throughput: a league has at most 1,000 members, so its partition takes at most 1,000
// copy updates per scored event (≈ 2,000 WCU spread over the whole scoring run, against
// 1,000 WCU per second per partition), however many players the table has. Leagues shared
// by the recorded players would instead be replayed as a few partitions taking every
// player's copies at a million players.
func (h *harness) seedLeagues(ctx context.Context, n, k int) error {
	if k == 0 {
		return nil
	}
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	num := func(v int) types.AttributeValue { return &types.AttributeValueMemberN{Value: fmt.Sprint(v)} }
	var items []map[string]types.AttributeValue
	for p := range n {
		uid := PlayerID(p)
		var ids []string
		for j := range k {
			lid := fmt.Sprintf("%s-league-%02d", uid, j)
			ids = append(ids, lid)
			items = append(items, map[string]types.AttributeValue{
				"PK": s("LEAGUE#" + lid), "SK": s("MEMBER#" + uid), "type": s("leagueMember"), "leagueId": s(lid),
				"userId": s(uid), "userName": s(playerName(p)), "userNameVersion": num(0),
				"joinedAt": s("2030-01-01T00:00:00.000000000Z"), "copies": &types.AttributeValueMemberBOOL{Value: true},
			})
		}
		items = append(items, map[string]types.AttributeValue{
			"PK": s("USER#" + uid), "SK": s("@LEAGUES"), "type": s("leagueCount"), "leagues": num(k),
			"ids": &types.AttributeValueMemberSS{Value: ids}, "rev": num(1),
		})
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for start := 0; start < len(items); start += 25 {
		batch := items[start:min(start+25, len(items))]
		g.Go(func() error {
			req := make([]types.WriteRequest, len(batch))
			for i, it := range batch {
				req[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
			}
			for len(req) > 0 {
				out, err := h.db.BatchWriteItem(gctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{h.table: req}})
				if err != nil {
					return fmt.Errorf("seed leagues: %w", err)
				}
				req = out.UnprocessedItems[h.table]
			}
			return nil
		})
	}
	return g.Wait()
}
