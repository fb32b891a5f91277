package users

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// Delete deletes a player's account: it leaves their leagues (leagues.Leagues.Leave:
// hand-over or close), then deletes each prediction and each standing in a transaction of
// its own with what counts it — the prediction's lock copy (predictions − 1, when it was
// counted), its shard's scoring checkpoint (done − 1 when the checkpoint is of the card the
// prediction was scored with; its position moved back when it names the player; otherwise
// checked unchanged, so that a scoring run in flight re-reads:
// scoring.Engine.PredictionDeleted), and the shard's score histogram of the event or season
// (− 1 at its points) — then rebuilds the rank tables of the scored events it touched
// (scoring.Engine.SummarizeRanks), and last deletes the profile and the league item. Scored
// results of others do not change; the player's rows leave leaderboards and standings. A
// call cut off halfway is finished by the next: every step reads what is left (a consistent
// Query of the player's partition).
func (a *Accounts) Delete(ctx context.Context, user string) error {
	uid, err := table.ParseUserID(user)
	if err != nil {
		return err
	}
	defer a.cache.ForgetPlayerPages(true) // the player's rows leave leaderboards, standings and ranks
	leagues, err := a.leagues.MemberOf(ctx, user)
	if err != nil {
		return err
	}
	for _, id := range leagues {
		if err := a.leagues.Leave(ctx, user, id); err != nil && domain.ErrorCode(err) != domain.CodeNotFound {
			return err
		}
	}
	wrap := func(err error) error { return fmt.Errorf("dynamo: delete user %s: %w", uid, err) }
	for attempt := 0; attempt < ddb.OptimisticAttempts; attempt++ {
		q, err := a.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.UserPK(uid))), 0, true)
		if err != nil {
			return wrap(err)
		}
		q.ConsistentRead = aws.Bool(true)
		var (
			preds     []table.PredictionRow
			standings []table.StandingRow
			rest      []table.Keys // the profile, the league item, memberships left
		)
		err = a.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
			var k table.Keys
			switch table.ItemType(item) {
			case table.TypePrediction:
				var row table.PredictionRow
				err := attributevalue.UnmarshalMap(item, &row)
				preds = append(preds, row)
				return err == nil, err
			case table.TypeStanding:
				var row table.StandingRow
				err := attributevalue.UnmarshalMap(item, &row)
				standings = append(standings, row)
				return err == nil, err
			}
			err := attributevalue.UnmarshalMap(item, &k)
			rest = append(rest, k)
			return err == nil, err
		})
		if err != nil {
			return wrap(err)
		}
		if len(preds)+len(standings) == 0 {
			if err := a.deleteRest(ctx, rest); err != nil {
				return wrap(err)
			}
			return nil
		}
		retry := false
		type scored struct {
			eid    table.EventID
			shards int
			season int
		}
		touched := map[scored]bool{}
		for _, p := range preds {
			ev, err := a.eventRow(ctx, table.EventID(p.EventID))
			if err != nil {
				return wrap(err)
			}
			ok, err := a.deletePrediction(ctx, uid, p, ev)
			if err != nil {
				return wrap(err)
			}
			retry = retry || !ok
			if ok && p.Points != nil {
				touched[scored{table.EventID(p.EventID), ev.Shards, p.Season}] = true
			}
		}
		for _, st := range standings {
			ok, err := a.deleteStanding(ctx, uid, st)
			if err != nil {
				return wrap(err)
			}
			retry = retry || !ok
		}
		for t := range touched {
			seasonShards, err := a.seasonShards(ctx, t.season)
			if err != nil {
				return wrap(err)
			}
			if err := a.scoring.SummarizeRanks(ctx, t.eid, t.shards, t.season, seasonShards); err != nil {
				return wrap(err)
			}
		}
		if !retry {
			continue // read again: nothing should be left but the profile
		}
		if err := ddb.Sleep(ctx, ddb.Backoff(attempt+1)); err != nil {
			return err
		}
	}
	return domain.Errorf(domain.CodeConflict, "the account kept changing while it was deleted; try again")
}

// deletePrediction deletes one prediction of the event of row ev with what counts it, in
// one transaction; ok is false when a condition failed (the prediction, the copy or the
// checkpoint changed since they were read): the caller reads again.
func (a *Accounts) deletePrediction(ctx context.Context, uid table.UserID, p table.PredictionRow, ev table.EventRow) (bool, error) {
	eid := table.EventID(p.EventID)
	sh := uid.Shard(ev.Shards)
	var tx ddb.Tx
	tx.Add(a.db.DeleteIf(table.Key(p.PK, p.SK), expression.Name("version").Equal(expression.Value(p.Version))))
	// The copy that counted it, of the event's own count of copies.
	tx.Add(a.db.UpdateIf(table.Key(table.LockPK(eid, uid.LockCopy(ev.LockCopies)), table.LockSK),
		expression.Add(expression.Name("predictions"), expression.Value(-1)), expression.Name("predictions").GreaterThan(expression.Value(0))))
	// What scoring counted of it.
	items, err := a.scoring.PredictionDeleted(ctx, uid, p, sh)
	if err != nil {
		return false, err
	}
	tx.Items = append(tx.Items, items...)
	if tx.Err != nil {
		return false, tx.Err
	}
	return a.deleteTransaction(ctx, tx.Items)
}

// deleteStanding deletes one season standing with its shard's season histogram moved, in
// one transaction; ok as deletePrediction's.
func (a *Accounts) deleteStanding(ctx context.Context, uid table.UserID, st table.StandingRow) (bool, error) {
	seasonShards, err := a.seasonShards(ctx, st.Season)
	if err != nil {
		return false, err
	}
	var tx ddb.Tx
	tx.Add(a.db.DeleteIf(table.Key(st.PK, st.SK), expression.Name("version").Equal(expression.Value(st.Version))))
	items, err := a.scoring.StandingDeleted(uid, st, seasonShards)
	if err != nil {
		return false, err
	}
	tx.Items = append(tx.Items, items...)
	if tx.Err != nil {
		return false, tx.Err
	}
	return a.deleteTransaction(ctx, tx.Items)
}

// deleteTransaction runs items; false (no error) when a condition failed.
func (a *Accounts) deleteTransaction(ctx context.Context, items []types.TransactWriteItem) (bool, error) {
	err := a.db.TransactRetry(ctx, items)
	if _, cancelled := ddb.CancellationReasons(err); cancelled {
		return false, nil
	}
	return err == nil, err
}

// deleteRest deletes the last items of a player's partition (profile, league item, any
// membership left), in one transaction per 100.
func (a *Accounts) deleteRest(ctx context.Context, rest []table.Keys) error {
	for start := 0; start < len(rest); start += ddb.MaxTransactItems {
		var items []types.TransactWriteItem
		for _, k := range rest[start:min(start+ddb.MaxTransactItems, len(rest))] {
			items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(a.db.Name), Key: table.Key(k.PK, k.SK)}})
		}
		if err := a.db.TransactRetry(ctx, items); err != nil {
			return err
		}
	}
	return nil
}
