package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
)

// The floors: for each screen, the DynamoDB call(s) it cannot avoid, made with the same
// client as the store but nothing else — no expression builder, no unmarshalling into
// rows, no GraphQL, no HTTP. They ask for consumed capacity like the stack does when its
// cost extension is on, so both pay the same engine work.

// Every floor returns the number of items DynamoDB returned to it. What its calls cost is
// counted by the client's cost middleware (ddb.CostOption, the store's own accounting)
// into the ddb.Cost of the context the floor runs with (see measure).

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func nv(n int) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.Itoa(n)}
}

// query runs q and follows LastEvaluatedKey while more is true for the items so far.
func (e *env) query(ctx context.Context, q *dynamodb.QueryInput, more func(items int) bool) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for {
		out, err := e.db.Query(ctx, q)
		if err != nil {
			return items, err
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 || !more(len(items)) {
			return items, nil
		}
		q.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func always(int) bool { return true }

// floorEvents is screen 1: Query PK = EVENT, begins_with(SK, "EVENT#"), newest first, 21 items.
func (e *env) floorEvents(ctx context.Context, first int) (int, error) {
	items, err := e.query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(e.table),
		KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :sk)"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(eventsPK), ":sk": sv("EVENT#")},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(first + 1)),
	}, func(n int) bool { return n <= first })
	return len(items), err
}

// cardQuery is the card of an event: GSI_PK = EVENT#<id>, GSI_SK BETWEEN "CARD#" AND "CARD$".
func (e *env) cardQuery(eid string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 aws.String(e.table),
		IndexName:                 aws.String(indexName),
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrGSIPK, "#sk": attrGSISK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(eventGSIPK(eid)), ":lo": sv(cardPrefix), ":hi": sv("CARD$")},
		ScanIndexForward:          aws.Bool(true),
	}
}

// floorCard is screen 2: the card Query and, in parallel, the caller's prediction
// (consistent GetItem PK = USER#<uid>, SK = EVENT#<id>).
func (e *env) floorCard(ctx context.Context, eid, uid string) (int, error) {
	type res struct {
		items int
		err   error
	}
	ch := make(chan res, 1)
	go func() {
		items, err := e.query(ctx, e.cardQuery(eid), always)
		ch <- res{len(items), err}
	}()
	out, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(e.table), Key: map[string]types.AttributeValue{attrPK: sv(userPK(uid)), attrSK: sv(eventSK(eid))},
		ConsistentRead: aws.Bool(true),
	})
	r := <-ch
	if err == nil && out.Item == nil {
		err = fmt.Errorf("no prediction of %s for %s", uid, eid)
	}
	if err == nil {
		err = r.err
	}
	return r.items + 1, err
}

// floorScored is screen 3: the card's Query and, at once, one ascending Query of each of
// the event's score shards between "SCORE#" and "SCORE$", first+1 rows each (any one shard
// may hold the whole page): scoreShards+1 calls in one round trip. The screen does not
// show the rows' picks, so the shards are read with only what a row shows (and its score
// key, to merge them).
func (e *env) floorScored(ctx context.Context, eid string, first int) (int, error) {
	return e.shardFloor(ctx, shardPKs(eid), first, e.cardQuery(eid),
		attrGSISK, "userId", "userName", "eventId", "eventName", "eventStartsAt", "points", "correct", "updatedAt")
}

// floorStandings is screen 4: one Query of each of the season's score shards, first+1 rows
// each.
func (e *env) floorStandings(ctx context.Context, season, first int) (int, error) {
	pks := make([]string, scoreShards)
	for s := range pks {
		pks[s] = seasonShardPK(season, s)
	}
	return e.shardFloor(ctx, pks, first, nil)
}

// shardFloor reads the score rows of partitions pks, first+1 at most from each (only the
// attributes attrs, if any), and extra (if not nil), all at once; it returns the items read.
func (e *env) shardFloor(ctx context.Context, pks []string, first int, extra *dynamodb.QueryInput, attrs ...string) (int, error) {
	qs := make([]*dynamodb.QueryInput, 0, len(pks)+1)
	for _, pk := range pks {
		q := &dynamodb.QueryInput{
			TableName:                 aws.String(e.table),
			IndexName:                 aws.String(indexName),
			KeyConditionExpression:    aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
			ExpressionAttributeNames:  map[string]string{"#pk": attrGSIPK, "#sk": attrGSISK},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(pk), ":lo": sv(scorePrefix), ":hi": sv(scoreUpper)},
			ScanIndexForward:          aws.Bool(true),
			Limit:                     aws.Int32(int32(first + 1)),
		}
		if len(attrs) > 0 {
			refs := make([]string, len(attrs))
			for i, a := range attrs {
				refs[i] = fmt.Sprintf("#a%d", i)
				q.ExpressionAttributeNames[refs[i]] = a
			}
			q.ProjectionExpression = aws.String(strings.Join(refs, ", "))
		}
		qs = append(qs, q)
	}
	if extra != nil {
		qs = append(qs, extra)
	}
	counts := make([]int, len(qs))
	g, gctx := errgroup.WithContext(ctx)
	for i, q := range qs {
		g.Go(func() error {
			more := func(n int) bool { return n <= first }
			if q == extra {
				more = always
			}
			items, err := e.query(gctx, q, more)
			counts[i] = len(items)
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

// floorProfile is screen 5, viewed by another player: Query PK = USER#<uid> newest first:
// the user, their standings, then their predictions (1 + 4 + 20 + 1 items); then, in one
// BatchGetItem, the rank tables of the scored predictions shown and of the seasons (PK =
// EVENT#<eid> or STANDINGS#<season>, SK = RANKS: a rank outside a page cannot be known
// without them) and the event rows of the unscored predictions whose event is dated today or
// later (whether its picks are visible yet: started or BROADCAST). With such rows the read is
// strongly consistent: a stale event row could show picks of an event whose start was moved
// later (dynamo/visibility.go). It returns the items read besides the rank tables, and the
// rank tables found.
func (e *env) floorProfile(ctx context.Context, uid string, first int) (items, tables int, err error) {
	limit := 1 + seasonsPerProfile + first + 1
	rows, err := e.query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(e.table),
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk >= :sk"), // not the league rows ("@…")
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(userPK(uid)), ":sk": sv("EVENT#")},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(limit)),
	}, func(n int) bool { return n < limit })
	if err != nil {
		return len(rows), 0, err
	}
	var keys []map[string]types.AttributeValue
	shown, pending := 0, 0
	for _, it := range rows {
		switch t, _ := it["type"].(*types.AttributeValueMemberS); {
		case t == nil:
		case t.Value == "standing":
			season, _ := it["season"].(*types.AttributeValueMemberN)
			n, _ := strconv.Atoi(season.Value)
			keys = append(keys, map[string]types.AttributeValue{attrPK: sv(seasonSK(n)), attrSK: sv(ranksSK)})
		case t.Value == "prediction" && it["points"] != nil && shown < first:
			shown++
			eid, _ := it["eventId"].(*types.AttributeValueMemberS)
			keys = append(keys, map[string]types.AttributeValue{attrPK: sv(eventGSIPK(eid.Value)), attrSK: sv(ranksSK)})
		case t.Value == "prediction" && it["points"] == nil:
			eid, _ := it["eventId"].(*types.AttributeValueMemberS)
			if !domain.LockedByDate(eid.Value, e.now) {
				pending++
				keys = append(keys, map[string]types.AttributeValue{attrPK: sv(eventsPK), attrSK: sv(eventSK(eid.Value))})
			}
		}
	}
	if len(keys) == 0 {
		return len(rows), 0, nil
	}
	out, err := e.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
		RequestItems: map[string]types.KeysAndAttributes{e.table: {Keys: keys, ConsistentRead: aws.Bool(pending > 0)}},
	})
	if err != nil {
		return len(rows), 0, err
	}
	if len(out.UnprocessedKeys) > 0 {
		return len(rows), 0, fmt.Errorf("rank tables: %d keys unprocessed", len(out.UnprocessedKeys[e.table].Keys))
	}
	found := out.Responses[e.table]
	for _, it := range found {
		if sk, _ := it[attrSK].(*types.AttributeValueMemberS); sk != nil && sk.Value == ranksSK {
			tables++
		}
	}
	return len(rows) + len(found) - tables, tables, nil
}

// floorSubmit is screen 6: read the card (to validate the picks) and, in parallel, the
// caller's user item (for the name copied onto the prediction); then one transaction:
// ConditionCheck on the caller's lock copy of the event (open, card unchanged), Put of the
// prediction (not scored yet), ConditionCheck on the user (name unchanged).
func (e *env) floorSubmit(ctx context.Context, l *league, ev *leagueEvent, k, p int) (int, error) {
	uid := playerID(p)
	type res struct {
		items []map[string]types.AttributeValue
		err   error
	}
	ch := make(chan res, 1)
	go func() {
		items, err := e.query(ctx, e.cardQuery(ev.id), always)
		ch <- res{items, err}
	}()
	user, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(e.table), Key: map[string]types.AttributeValue{attrPK: sv(userPK(uid)), attrSK: sv(userSK)},
		ConsistentRead: aws.Bool(true),
	})
	r := <-ch
	if err != nil {
		return 0, err
	}
	if r.err != nil {
		return 0, r.err
	}
	var u userItem
	var card eventItem
	if err := attributevalue.UnmarshalMap(user.Item, &u); err != nil {
		return 0, err
	}
	for _, it := range r.items {
		if t, _ := it["type"].(*types.AttributeValueMemberS); t != nil && t.Value == "event" {
			if err := attributevalue.UnmarshalMap(it, &card); err != nil {
				return 0, err
			}
		}
	}
	pred := l.predictionFor(ev, k, p, e.now)
	pred.UserName, pred.UserNameVersion = u.Name, u.NameVersion
	item, err := attributevalue.MarshalMap(pred)
	if err != nil {
		return 0, err
	}
	_, err = e.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(e.table), Key: map[string]types.AttributeValue{attrPK: sv(lockPK(ev.id, lockCopy(uid))), attrSK: sv(lockSK)},
				ConditionExpression:      aws.String("#st = :up AND #start > :now AND #cv = :cv"),
				ExpressionAttributeNames: map[string]string{"#st": "state", "#start": "startsAt", "#cv": "cardVersion"},
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":up": sv("UPCOMING"), ":now": sv(e.now.UTC().Format(timeLayout)), ":cv": nv(card.CardVersion)},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			}},
			{Put: &types.Put{
				TableName: aws.String(e.table), Item: item,
				ConditionExpression: aws.String("attribute_not_exists(#pts)"), ExpressionAttributeNames: map[string]string{"#pts": "points"},
			}},
			{ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(e.table), Key: map[string]types.AttributeValue{attrPK: sv(userPK(uid)), attrSK: sv(userSK)},
				ConditionExpression:       aws.String("#nv = :nv"),
				ExpressionAttributeNames:  map[string]string{"#nv": "nameVersion"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":nv": nv(u.NameVersion)},
			}},
		},
	})
	if err != nil {
		return 0, err
	}
	return len(r.items) + 1, nil
}
