package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// Lock copies (table.LockRow). A submit's transaction checks the lock condition (open,
// start ahead, the card version read) on its player's copy instead of the event item, so
// that concurrent submits are spread over the event's copies rather than all holding one
// (on AWS, transactions that include one item at the same time cancel each other). The
// copies mirror the event row: every write of the event row that changes what a submit's
// condition reads bumps its rev (conditioned on the rev read, so the new row is known
// exactly), and then syncLocks writes the row's fields to every copy, only forward
// (a copy's rev never goes back). There are more copies than a transaction holds, so they
// are created (createLocks) and synced in transactions of at most 100 copies, or one by one
// while other transactions hold them (a submit rush). Before an admin change the copies
// are checked to exist and be current (ensureLocks), so that a creation or a sync cut off
// by a crash is finished before anything that relies on it (a result is only entered once
// every copy is locked; scoring checks the same before it reads the counts); a submit that
// finds its copy missing or behind the event row brings the copies forward and tries again.

// lockWorkers bounds the single-copy writes run at once when a chunk falls back to them.
const lockWorkers = 16

// allCopies lists every copy of the event of row: 0..row.LockCopies-1.
func allCopies(row table.EventRow) []int {
	all := make([]int, row.LockCopies)
	for c := range all {
		all[c] = c
	}
	return all
}

// readLocks reads every lock copy of the event of row consistently (BatchGetItems of 100
// keys), by copy. A copy that does not exist is missing from the map.
func (s *Store) readLocks(ctx context.Context, row table.EventRow) (map[int]table.LockRow, error) {
	eid, copies := table.EventID(row.ID), row.LockCopies
	locks := make(map[int]table.LockRow, copies)
	byPK := make(map[string]int, copies)
	for c := range copies {
		byPK[table.LockPK(eid, c)] = c
	}
	err := s.db.BatchGet(ctx, table.LockKeys(eid, copies), true, func(item map[string]types.AttributeValue) error {
		var row table.LockRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return err
		}
		if c, ok := byPK[row.PK]; ok {
			locks[c] = row
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dynamo: read lock copies %s: %w", eid, err)
	}
	return locks, nil
}

// locksToFix lists the copies of the event of row that are missing from locks (as read),
// and those behind its rev.
func locksToFix(locks map[int]table.LockRow, row table.EventRow) (missing, behind []int) {
	for c := range row.LockCopies {
		l, ok := locks[c]
		switch {
		case !ok:
			missing = append(missing, c)
		case l.Rev < row.Rev:
			behind = append(behind, c)
		}
	}
	return missing, behind
}

// lockSync is the update that brings a copy forward to ev's fields and rev. It fails its
// condition on a copy already at that rev or later, or missing.
func lockSync(ev table.EventRow) (expression.Expression, error) {
	return expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("name"), expression.Value(ev.Name)).
			Set(expression.Name("startsAt"), expression.Value(ev.StartsAt)).
			Set(expression.Name("state"), expression.Value(ev.State)).
			Set(expression.Name("cardVersion"), expression.Value(ev.CardVersion)).
			Set(expression.Name("rev"), expression.Value(ev.Rev))).
		WithCondition(table.Exists().
			And(expression.Name("rev").LessThan(expression.Value(ev.Rev)))).Build()
}

// writeLocks writes one item per copy of copies: transactions of at most 100 items, and,
// for a chunk that is cancelled (other transactions in flight on its copies, or one of
// its conditions failing), each of its copies alone (lockWorkers at once).
func (s *Store) writeLocks(ctx context.Context, copies []int, item func(c int) (types.TransactWriteItem, error), alone func(ctx context.Context, c int) error) error {
	for start := 0; start < len(copies); start += ddb.MaxTransactItems {
		chunk := copies[start:min(start+ddb.MaxTransactItems, len(copies))]
		items := make([]types.TransactWriteItem, len(chunk))
		for i, c := range chunk {
			var err error
			if items[i], err = item(c); err != nil {
				return err
			}
		}
		err := s.db.Transact(ctx, items)
		if err == nil {
			continue
		}
		if _, cancelled := ddb.CancellationReasons(err); !cancelled {
			return err
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(lockWorkers)
		for _, c := range chunk {
			g.Go(func() error { return alone(gctx, c) })
		}
		if err := g.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// createLocks creates the copies listed from ev, counting no prediction. A copy that
// exists by then (another writer made it) is brought forward to ev instead.
func (s *Store) createLocks(ctx context.Context, ev table.EventRow, copies []int) error {
	err := s.writeLocks(ctx, copies, func(c int) (types.TransactWriteItem, error) {
		return s.db.Put(table.NewLockRow(ev, c), table.NotExists())
	}, func(ctx context.Context, c int) error {
		it, err := s.db.Put(table.NewLockRow(ev, c), table.NotExists())
		if err != nil {
			return err
		}
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: it.Put.TableName, Item: it.Put.Item, ConditionExpression: it.Put.ConditionExpression,
			ExpressionAttributeNames: it.Put.ExpressionAttributeNames,
		})
		if ddb.IsConditionFailed(err) {
			return s.syncLock(ctx, ev, c)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("dynamo: create lock copies %s: %w", ev.ID, err)
	}
	return nil
}

// syncLocks brings every lock copy of ev's event that is behind ev.Rev forward to ev (the
// event row as it is in the table at that rev). behind lists the copies to write (nil:
// all). A copy already at ev.Rev or later is left as it is, and so is a missing one
// (ensureLocks creates those).
func (s *Store) syncLocks(ctx context.Context, ev table.EventRow, behind []int) error {
	if behind == nil {
		behind = allCopies(ev)
	}
	expr, err := lockSync(ev)
	if err != nil {
		return fmt.Errorf("dynamo: sync lock copies %s: %w", ev.ID, err)
	}
	err = s.writeLocks(ctx, behind, func(c int) (types.TransactWriteItem, error) {
		return types.TransactWriteItem{Update: &types.Update{
			TableName: aws.String(s.db.Name), Key: table.Key(table.LockPK(table.EventID(ev.ID), c), table.LockSK),
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}}, nil
	}, func(ctx context.Context, c int) error { return s.syncLock(ctx, ev, c) })
	if err != nil {
		return fmt.Errorf("dynamo: sync lock copies %s: %w", ev.ID, err)
	}
	return nil
}

// syncLock brings copy c forward to ev with one conditional update; a copy already there
// (or further, or missing) is left as it is.
func (s *Store) syncLock(ctx context.Context, ev table.EventRow, c int) error {
	expr, err := lockSync(ev)
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.db.Name), Key: table.Key(table.LockPK(table.EventID(ev.ID), c), table.LockSK),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if ddb.IsConditionFailed(err) {
		return nil
	}
	return err
}

// ensureLocks makes sure every lock copy of the event row ev (read consistently) exists
// and is at its rev or later: one consistent read of the copies, then the creation of the
// missing ones and a sync of those behind (a creation or a sync cut off earlier). Admin
// changes call it before they write.
func (s *Store) ensureLocks(ctx context.Context, ev table.EventRow) error {
	locks, err := s.readLocks(ctx, ev)
	if err != nil {
		return err
	}
	return s.fixLocks(ctx, ev, locks)
}

// fixLocks creates the copies missing from locks (as read) and syncs those behind ev.
func (s *Store) fixLocks(ctx context.Context, ev table.EventRow, locks map[int]table.LockRow) error {
	missing, behind := locksToFix(locks, ev)
	if err := s.createLocks(ctx, ev, missing); err != nil {
		return err
	}
	if len(behind) == 0 {
		return nil
	}
	return s.syncLocks(ctx, ev, behind)
}

// getEventRow reads an event row consistently; NOT_FOUND if there is none.
func (s *Store) getEventRow(ctx context.Context, eid table.EventID) (table.EventRow, error) {
	row, err := ddb.Get[table.EventRow](ctx, s.db, table.Key(table.EventsPartition, table.EventSK(eid)), true)
	if err != nil {
		return table.EventRow{}, fmt.Errorf("dynamo: get event %s: %w", eid, err)
	}
	if row == nil {
		return table.EventRow{}, domain.Errorf(domain.CodeNotFound, "event %q not found", eid)
	}
	return *row, nil
}

// MaxLockCopyBatches is how many transactions (or BatchGetItems) of at most 100 items all
// the lock copies of an event of MaxShards shards take: what an admin change that reads,
// creates or syncs every copy may make (server.FieldCosts).
const MaxLockCopyBatches = (table.MaxLockCopies + ddb.MaxTransactItems - 1) / ddb.MaxTransactItems

// CountPredictions adds the predictions of users, written with PredictionItem, to event's
// prediction counts, as their first submits would have: one update per lock copy
// concerned.
func (s *Store) CountPredictions(ctx context.Context, event string, users []string) error {
	row, err := s.getEventRow(ctx, table.EventID(event))
	if err != nil {
		return err
	}
	perCopy := map[int]int{}
	for _, u := range users {
		perCopy[table.UserID(u).LockCopy(row.LockCopies)]++
	}
	for c, n := range perCopy {
		var tx ddb.Tx
		tx.Add(s.db.UpdateIf(table.Key(table.LockPK(table.EventID(event), c), table.LockSK), expression.Add(expression.Name("predictions"), expression.Value(n)),
			table.Exists()))
		if tx.Err != nil {
			return tx.Err
		}
		if err := s.db.Transact(ctx, tx.Items); err != nil {
			return fmt.Errorf("dynamo: count predictions of %s: %w", event, err)
		}
	}
	return nil
}
