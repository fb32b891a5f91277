package scoring

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/dynamo/table"
)

// checkpointOnDelete is the transaction item of the scoring checkpoint of p's shard (read
// consistently here) when p is deleted: done − 1 if p was written for the checkpoint's
// card version; its position (after: the last index key a run passed) moved back to just
// before p's key if it is p's key, so that no row keeps the player's id (the next pass
// reads the keys of p's score again, which were written already: nothing is counted
// twice); otherwise a check that it is unchanged — so that a scoring run moving it in
// between cancels this delete, or this delete cancels the run's move (it reads again).
func (e *Engine) checkpointOnDelete(ctx context.Context, uid table.UserID, p table.PredictionRow, sh int) (types.TransactWriteItem, error) {
	key := table.CheckpointKey(table.EventID(p.EventID), sh)
	out, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.db.Name), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	if out.Item == nil {
		return e.db.Check(key, table.NotExists())
	}
	var cp table.CheckpointRow
	if err := attributevalue.UnmarshalMap(out.Item, &cp); err != nil {
		return types.TransactWriteItem{}, err
	}
	cond := expression.Name("cardVersion").Equal(expression.Value(cp.CardVersion)).
		And(expression.Name("done").Equal(expression.Value(cp.Done))).
		And(expression.Name("after").Equal(expression.Value(cp.After)))
	var upd expression.UpdateBuilder
	changed := false
	if before, ok := strings.CutSuffix(cp.After, string(uid)); ok && strings.HasSuffix(before, "#") {
		upd = upd.Set(expression.Name("after"), expression.Value(before))
		changed = true
	}
	if p.ScoredWith != nil && cp.CardVersion == *p.ScoredWith {
		upd = upd.Add(expression.Name("done"), expression.Value(-1))
		changed = true
		if cp.Picked > 0 { // its picks leave the pass's pick counts too (pickCountsOnDelete)
			upd = pickCountsOnDelete(upd.Add(expression.Name("picked"), expression.Value(-1)), p, cp)
		}
	}
	if !changed {
		return e.db.Check(key, cond)
	}
	return e.db.UpdateIf(key, upd, cond)
}

// PredictionDeleted are the items, in the transaction that deletes prediction p of shard
// sh of its event, that take p out of what scoring counted: its shard's checkpoint
// (checkpointOnDelete) and, when p is scored, one player less at its points in the shard's
// event histogram.
func (e *Engine) PredictionDeleted(ctx context.Context, uid table.UserID, p table.PredictionRow, sh int) ([]types.TransactWriteItem, error) {
	item, err := e.checkpointOnDelete(ctx, uid, p, sh)
	if err != nil {
		return nil, err
	}
	items := []types.TransactWriteItem{item}
	if p.Points != nil {
		d := rankDelta{}
		d.move(p.Points, nil)
		it, ok, err := e.ranksUpdate(table.EventRanksKey(table.EventID(p.EventID), sh), d)
		if err != nil {
			return nil, err
		}
		if ok {
			items = append(items, it)
		}
	}
	return items, nil
}

// StandingDeleted are the items, in the transaction that deletes standing st of a season
// of seasonShards shards, that take it out of what scoring counted: one player less at its
// points in its shard's season histogram.
func (e *Engine) StandingDeleted(uid table.UserID, st table.StandingRow, seasonShards int) ([]types.TransactWriteItem, error) {
	d := rankDelta{}
	points := st.Points
	d.move(&points, nil)
	it, ok, err := e.ranksUpdate(table.SeasonRanksKey(st.Season, uid.Shard(seasonShards)), d)
	if err != nil || !ok {
		return nil, err
	}
	return []types.TransactWriteItem{it}, nil
}
