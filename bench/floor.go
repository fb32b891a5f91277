package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// The floors: for each screen, the DynamoDB call(s) it cannot avoid, made with the
// path's client (the one its store uses) and nothing else: hand-written inputs, no
// expression builder, no rows decoded, no GraphQL, no HTTP. Every key value and sort-key
// bound comes from the store's layout (dynamo/table/layout.go). Every floor returns the number
// of items DynamoDB returned to it; what its calls cost is counted by the client's cost
// middleware (ddb.CostOption, the store's own accounting) into the ddb.Cost of the
// context it runs with (see measure).

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// str is the string attribute name of item ("" if it has none).
func str(item map[string]types.AttributeValue, name string) string {
	v, _ := item[name].(*types.AttributeValueMemberS)
	if v == nil {
		return ""
	}
	return v.Value
}

func keyOf(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{table.AttrPK: sv(pk), table.AttrSK: sv(sk)}
}

// Page arithmetic of the store's profile (dynamo/profiles.go): the user, up to 4 standings,
// then predictions, one more than the page to learn whether there is a next one.
const seasonsPerProfile = 4

// query runs q page after page, handing each item to each until it returns false (nil:
// every item), and returns the items DynamoDB returned (whole pages).
func query(ctx context.Context, db *dynamodb.Client, q *dynamodb.QueryInput, each func(map[string]types.AttributeValue) bool) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for {
		out, err := db.Query(ctx, q)
		if err != nil {
			return items, err
		}
		items = append(items, out.Items...)
		for _, it := range out.Items {
			if each != nil && !each(it) {
				return items, nil
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return items, nil
		}
		q.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// upTo is an each for query that stops at n items.
func upTo(n int) func(map[string]types.AttributeValue) bool {
	seen := 0
	return func(map[string]types.AttributeValue) bool {
		seen++
		return seen < n
	}
}

// indexRange is a Query of the index partition pk between sort keys lo and hi, ascending,
// at most limit items (0: no limit), reading only attrs (none: every attribute).
func (e *env) indexRange(pk, lo, hi string, limit int, attrs ...string) *dynamodb.QueryInput {
	q := &dynamodb.QueryInput{
		TableName:                 aws.String(e.table),
		IndexName:                 aws.String(table.IndexName),
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames:  map[string]string{"#pk": table.AttrGSIPK, "#sk": table.AttrGSISK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(pk), ":lo": sv(lo), ":hi": sv(hi)},
		ScanIndexForward:          aws.Bool(true),
	}
	if limit > 0 {
		q.Limit = aws.Int32(int32(limit))
	}
	if len(attrs) > 0 {
		refs := make([]string, len(attrs))
		for i, a := range attrs {
			refs[i] = fmt.Sprintf("#a%d", i)
			q.ExpressionAttributeNames[refs[i]] = a
		}
		q.ProjectionExpression = aws.String(strings.Join(refs, ", "))
	}
	return q
}

// floorEvents is screen 1: the events partition, sort keys starting with the events'
// prefix, newest first, first+1 items.
func (e *env) floorEvents(ctx context.Context, db *dynamodb.Client, first int) (int, error) {
	items, err := query(ctx, db, &dynamodb.QueryInput{
		TableName:                 aws.String(e.table),
		KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :sk)"),
		ExpressionAttributeNames:  map[string]string{"#pk": table.AttrPK, "#sk": table.AttrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(table.EventsPartition), ":sk": sv(table.EventKeyPrefix)},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(first + 1)),
	}, upTo(first+1))
	return len(items), err
}

// cardQuery is an event's card: its index partition from CardFirst to CardLast (the
// event's item sorts first).
func (e *env) cardQuery(eid string) *dynamodb.QueryInput {
	return e.indexRange(table.EventIndexPartition(eid), table.CardFirst, table.CardLast, 0)
}

// parallel runs the functions at once and returns the sum of the items they read.
func parallel(ctx context.Context, fs ...func(context.Context) (int, error)) (int, error) {
	counts := make([]int, len(fs))
	g, gctx := errgroup.WithContext(ctx)
	for i, f := range fs {
		g.Go(func() (err error) {
			counts[i], err = f(gctx)
			return err
		})
	}
	err := g.Wait()
	n := 0
	for _, c := range counts {
		n += c
	}
	return n, err
}

// queryAll is query of q to its end, as a function for parallel.
func queryAll(db *dynamodb.Client, q *dynamodb.QueryInput, each func(map[string]types.AttributeValue) bool) func(context.Context) (int, error) {
	return func(ctx context.Context) (int, error) {
		items, err := query(ctx, db, q, each)
		return len(items), err
	}
}

// floorCard is screen 2: the card's Query and, at once, the caller's prediction (consistent
// GetItem); with its rank (an event dated today or before, which may have a rank table), the
// prediction and the event's rank table in one consistent BatchGetItem. It returns the items
// read.
func (e *env) floorCard(ctx context.Context, db *dynamodb.Client, eid, uid string) (int, error) {
	return parallel(ctx, queryAll(db, e.cardQuery(eid), nil), func(ctx context.Context) (int, error) {
		if eid[:10] > domain.EventDate(e.now) {
			out, err := db.GetItem(ctx, &dynamodb.GetItemInput{
				TableName: aws.String(e.table), Key: table.PredictionKey(uid, eid), ConsistentRead: aws.Bool(true),
			})
			if err == nil && out.Item == nil {
				err = fmt.Errorf("no prediction of %s for %s", uid, eid)
			}
			return 1, err
		}
		out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			e.table: {Keys: []map[string]types.AttributeValue{table.PredictionKey(uid, eid), table.EventRankTableKey(eid)}, ConsistentRead: aws.Bool(true)},
		}})
		if err != nil {
			return 0, err
		}
		if len(out.UnprocessedKeys) > 0 {
			return 0, fmt.Errorf("unprocessed keys reading the prediction of %s for %s", uid, eid)
		}
		return len(out.Responses[e.table]), nil
	})
}

// floorScored is screen 3, an event with card matches and its leaderboard's first rows.
// With one shard: ONE Query of the event's index partition from CardFirst to ScoreLast
// (the card, then the scored predictions, best first), 1 + card + first + 1 items. With
// more: the card's Query and, at once, one Query of each shard from ScoreFirst to ScoreLast,
// first+1 rows each (any one shard may hold the whole page), read with only what a row
// shows (table.LeaderboardRowAttrs): shards+1 calls in one round trip.
func (e *env) floorScored(ctx context.Context, db *dynamodb.Client, eid string, shards, card, first int) (int, error) {
	if shards == 1 {
		return queryAll(db, e.indexRange(table.EventIndexPartition(eid), table.CardFirst, table.ScoreLast, 1+card+first+1), upTo(1+card+first+1))(ctx)
	}
	fs := []func(context.Context) (int, error){queryAll(db, e.cardQuery(eid), nil)}
	for _, pk := range table.EventShardPartitions(eid, shards) {
		fs = append(fs, queryAll(db, e.indexRange(pk, table.ScoreFirst, table.ScoreLast, first+1, table.LeaderboardRowAttrs()...), upTo(first+1)))
	}
	return parallel(ctx, fs...)
}

// floorStandings is screen 4, a season's first rows. With one shard: ONE Query of the
// season's index partition from SeasonInfo (the season's item, which says how many shards
// it has) to ScoreLast, first+2 items. With more: one Query of each shard from ScoreFirst to
// ScoreLast, first+1 rows each, at once.
func (e *env) floorStandings(ctx context.Context, db *dynamodb.Client, season, shards, first int) (int, error) {
	if shards == 1 {
		return queryAll(db, e.indexRange(table.SeasonIndexPartition(season), table.SeasonInfo, table.ScoreLast, first+2), upTo(first+2))(ctx)
	}
	var fs []func(context.Context) (int, error)
	for _, pk := range table.SeasonShardPartitions(season, shards) {
		fs = append(fs, queryAll(db, e.indexRange(pk, table.ScoreFirst, table.ScoreLast, first+1), upTo(first+1)))
	}
	return parallel(ctx, fs...)
}

// floorProfile is screen 5, viewed by another player: the player's partition from the
// events' prefix up, newest first (the user, their standings, then their predictions), 1 +
// 4 + first + 1 items a page, until first+1 predictions are known visible (scored, or of an
// event dated before today); then, in one BatchGetItem, the rank tables of the seasons and
// of the scored predictions read (a rank cannot be known without them) and the items of the
// events of the other predictions read (whether their picks may be shown yet), strongly
// consistent when there are such events (a stale event item could show picks too early).
// seasons are the seasons the player may have a standing in. It returns the items read
// besides the rank tables, and the rank tables found.
func (e *env) floorProfile(ctx context.Context, db *dynamodb.Client, uid string, first int, seasons []int) (items, tables int, err error) {
	userSK := str(table.UserKey(uid), table.AttrSK)
	standingSeason := map[string]int{}
	for _, s := range seasons {
		standingSeason[str(table.StandingKey(uid, s), table.AttrSK)] = s
	}
	var keys []map[string]types.AttributeValue
	tablePKs := map[string]bool{}
	wantTable := func(k map[string]types.AttributeValue) {
		keys = append(keys, k)
		tablePKs[str(k, table.AttrPK)] = true
	}
	known, pending := 0, 0
	limit := 1 + seasonsPerProfile + first + 1
	rows, err := query(ctx, db, &dynamodb.QueryInput{
		TableName:                 aws.String(e.table),
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk >= :sk"), // not the league rows, which sort below
		ExpressionAttributeNames:  map[string]string{"#pk": table.AttrPK, "#sk": table.AttrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(table.UserPartition(uid)), ":sk": sv(table.EventKeyPrefix)},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(limit)),
	}, func(it map[string]types.AttributeValue) bool {
		sk := str(it, table.AttrSK)
		eid, prediction := strings.CutPrefix(sk, table.EventKeyPrefix)
		switch {
		case sk == userSK:
		case !prediction:
			if s, ok := standingSeason[sk]; ok {
				wantTable(table.SeasonRankTableKey(s))
			}
		case strings.HasPrefix(str(it, table.AttrGSISK), table.ScoreFirst):
			known++
			wantTable(table.EventRankTableKey(eid))
		case domain.LockedByDate(eid, e.now):
			known++
		default:
			pending++
			keys = append(keys, table.EventItemKey(eid))
		}
		return known <= first
	})
	if err != nil || len(keys) == 0 {
		return len(rows), 0, err
	}
	out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
		RequestItems: map[string]types.KeysAndAttributes{e.table: {Keys: keys, ConsistentRead: aws.Bool(pending > 0)}},
	})
	if err != nil {
		return len(rows), 0, err
	}
	if n := len(out.UnprocessedKeys[e.table].Keys); n > 0 {
		return len(rows), 0, fmt.Errorf("profile: %d keys unprocessed", n)
	}
	found := out.Responses[e.table]
	for _, it := range found {
		if tablePKs[str(it, table.AttrPK)] {
			tables++
		}
	}
	return len(rows) + len(found) - tables, tables, nil
}

// floorSubmit is screen 6, player p's picks for ev, the k-th event of l: the card's Query
// and, at once, the player's profile and prediction (one consistent BatchGetItem); then one
// transaction: a ConditionCheck on the player's lock copy of the event (open, start ahead,
// the card version read), the Put of the prediction (not scored), a ConditionCheck on the
// profile (the name version read). It returns the card's items and the profile.
func (e *env) floorSubmit(ctx context.Context, db *dynamodb.Client, l *league, ev *leagueEvent, k, p int) (int, error) {
	uid := playerID(p)
	var card, mine []map[string]types.AttributeValue
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		card, err = query(gctx, db, e.cardQuery(ev.id), nil)
		return err
	})
	g.Go(func() error {
		out, err := db.BatchGetItem(gctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{e.table: {
			Keys: []map[string]types.AttributeValue{table.UserKey(uid), table.PredictionKey(uid, ev.id)}, ConsistentRead: aws.Bool(true),
		}}})
		if err == nil {
			mine = out.Responses[e.table]
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return 0, err
	}
	userSK := str(table.UserKey(uid), table.AttrSK)
	var user map[string]types.AttributeValue
	for _, it := range mine {
		if str(it, table.AttrSK) == userSK {
			user = it
		}
	}
	if len(card) == 0 || user == nil {
		return 0, fmt.Errorf("submit %s: %d card items, profile found: %t", ev.id, len(card), user != nil)
	}
	pred, err := table.PredictionItem(ev.domainEvent(), l.shards, uid, playerName(p), ev.entry(k, p), e.now)
	if err != nil {
		return 0, err
	}
	lockPK, lockSK := table.LockCopyKey(ev.id, uid, l.shards)
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(e.table), Key: keyOf(lockPK, lockSK),
				ConditionExpression:      aws.String("#st = :up AND #start > :now AND #cv = :cv"),
				ExpressionAttributeNames: map[string]string{"#st": "state", "#start": "startsAt", "#cv": "cardVersion"},
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":up": sv(string(domain.StateUpcoming)), ":now": sv(e.now.UTC().Format(time.RFC3339)), ":cv": card[0]["cardVersion"]},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			}},
			{Put: &types.Put{
				TableName: aws.String(e.table), Item: pred,
				ConditionExpression: aws.String("attribute_not_exists(#pts)"), ExpressionAttributeNames: map[string]string{"#pts": "points"},
			}},
			{ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(e.table), Key: table.UserKey(uid),
				ConditionExpression:       aws.String("#nv = :nv"),
				ExpressionAttributeNames:  map[string]string{"#nv": "nameVersion"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":nv": user["nameVersion"]},
			}},
		},
	})
	if err != nil {
		return 0, err
	}
	return len(card) + 1, nil
}
