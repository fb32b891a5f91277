package dynamo

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
)

// itemCountAPI counts the items of the TransactWriteItems that succeed, by kind.
type itemCountAPI struct {
	API
	mu    sync.Mutex
	items map[string]int // prediction, standing, league item, member row, other
}

func (a *itemCountAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := a.API.TransactWriteItems(ctx, in, opts...)
	if err != nil {
		return out, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, it := range in.TransactItems {
		var key map[string]types.AttributeValue
		switch {
		case it.Update != nil:
			key = it.Update.Key
		case it.Put != nil:
			key = it.Put.Item
		default:
			a.items["other"]++
			continue
		}
		pk, sk := itemString(key, attrPK), itemString(key, attrSK)
		kind := "other"
		switch {
		case len(sk) > len(prefixEvent) && sk[:len(prefixEvent)] == prefixEvent && pk[:len(prefixUser)] == prefixUser:
			kind = "prediction"
		case len(sk) > len(prefixSeason) && sk[:len(prefixSeason)] == prefixSeason && pk[:len(prefixUser)] == prefixUser:
			kind = "standing"
		case sk == leagueCountSK:
			kind = "league item"
		case len(sk) > len(prefixMember) && sk[:len(prefixMember)] == prefixMember:
			kind = "member row"
		}
		a.items[kind]++
	}
	return out, err
}

// seedLeagueMemberships makes every player of entries a member of k leagues (raw rows: a
// member row with copies per league, the player's league item), as k joins would have.
func seedLeagueMemberships(e *scEnv, entries []scEntry, k int) {
	e.t.Helper()
	var ids []string
	for range k {
		ids = append(ids, domain.NewLeagueID())
	}
	var items []map[string]types.AttributeValue
	for _, en := range entries {
		uid := userID(en.User)
		for _, lid := range ids {
			m, err := attributevalue.MarshalMap(memberRow{keys: keys{PK: leaguePK(leagueID(lid)), SK: memberSK(uid)}, Type: typeMember,
				LeagueID: lid, UserID: en.User, UserName: scName(en.User), UserNameVersion: 1, JoinedAt: "2025-01-01T00:00:00.000000000Z", Copies: true})
			if err != nil {
				e.t.Fatal(err)
			}
			items = append(items, m)
		}
		if k > 0 {
			items = append(items, map[string]types.AttributeValue{attrPK: str(userPK(uid)), attrSK: str(leagueCountSK),
				attrType: str(typeLeagueCount), "leagues": num(k), "ids": &types.AttributeValueMemberSS{Value: ids}, "rev": num(1)})
		}
	}
	scBatchWrite(e.t, e.client, e.table, items)
}

// BenchmarkScoreEventLeagues measures what league copies add to scoring, per scored
// player, with every player in 0, 1 or 20 leagues (the cap: 1,000 players fill 20 leagues
// of 1,000), on DynamoDB Local:
//
//	flock /work/.bench.lock go test ./dynamo/ -run '^$' -bench ScoreEventLeagues -benchtime 1x
//
// Two events of one season are scored in turn: the first creates every player's standing
// (first: a new standing also moves the player's league item on), the second updates them
// (next). Metrics per scored player: DynamoDB calls, transactions, transaction items (what
// AWS bills: 2 WCU per item of ≤ 1 KB in a transaction), and the RCU and WCU DynamoDB Local
// reports (it is known to misreport transactions: compare across these runs only). Then
// the copies must equal the standings. -short: 200 players.
func BenchmarkScoreEventLeagues(b *testing.B) {
	players := 1000
	if testing.Short() {
		players = 200
	}
	for _, k := range []int{0, 1, domain.MaxLeaguesPerPlayer} {
		b.Run(fmt.Sprintf("leagues=%d", k), func(b *testing.B) {
			metrics := map[string]float64{}
			for range b.N {
				b.StopTimer()
				e := newScEnv(b)
				first := e.createEvent("2025-03-01-first-show", scCard())
				next := e.createEvent("2025-04-20-next-show", scCard())
				entries := scGenEntries(players, scTeamCounts(first), 7)
				e.writeEntries(first, entries)
				e.writeEntries(next, entries)
				seedLeagueMemberships(e, entries, k)
				for _, ev := range []struct {
					name string
					ev   domain.Event
				}{{"first", e.setResults(first, scResults())}, {"next", e.setResults(next, scResults())}} {
					counter := &itemCountAPI{API: e.client, items: map[string]int{}}
					ctx, cost := WithCost(scCtx(b))
					b.StartTimer()
					rep, err := e.storeOver(counter).ScoreEvent(ctx, ev.ev.ID, false)
					b.StopTimer()
					scOK(b, err)
					if !rep.Complete || rep.PredictionsScored != players {
						b.Fatalf("%s: %+v", ev.name, rep)
					}
					snap := cost.Snapshot()
					n := float64(players)
					metrics[ev.name+"-calls/player"] += float64(snap.Calls) / n
					metrics[ev.name+"-tx/player"] += float64(rep.Transactions) / n
					total := 0
					for _, c := range counter.items {
						total += c
					}
					metrics[ev.name+"-items/player"] += float64(total) / n
					if snap.ReadCapacityUnits != nil {
						metrics[ev.name+"-RCU/player"] += *snap.ReadCapacityUnits / n
					}
					if snap.WriteCapacityUnits != nil {
						metrics[ev.name+"-WCU/player"] += *snap.WriteCapacityUnits / n
					}
					b.Logf("leagues=%d %s: %d players, %+v, items %v, %s", k, ev.name, players, rep, counter.items, costString(snap))
				}
				f := &fixture{t: b, db: e.client, table: e.table}
				if n := f.checkCopies(); n != players*k {
					b.Fatalf("%d copies compared, want %d", n, players*k)
				}
			}
			for name, v := range metrics {
				b.ReportMetric(v/float64(b.N), name)
			}
		})
	}
}
