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
)

// Lock copies (keys.go, lockRow). A submit's transaction checks the lock condition (open,
// start ahead, the card version read) on its player's copy instead of the event item, so
// that concurrent submits are spread over lockCopies items rather than all holding one
// (on AWS, transactions that include one item at the same time cancel each other). The
// copies mirror the event row: every write of the event row that changes what a submit's
// condition reads bumps its rev (conditioned on the rev read, so the new row is known
// exactly), and then syncLocks writes the row's fields to every copy, only forward
// (a copy's rev never goes back). Before an admin change the copies are checked to be
// current (ensureLocks), so that a sync cut off by a crash is finished before anything
// that relies on it (a result is only entered once every copy is locked); a submit that
// finds its copy behind the event row it read brings the copies forward and tries again.

// lockWorkers bounds the single-copy updates run at once when a sync falls back to them.
const lockWorkers = 16

// newLockPuts are the Puts creating an event's lock copies (none may exist yet).
func (s *Store) newLockPuts(ev eventRow) ([]types.TransactWriteItem, error) {
	items := make([]types.TransactWriteItem, lockCopies)
	for c := range lockCopies {
		var err error
		if items[c], err = s.put(newLockRow(ev, c), false); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// lockKeys are the keys of an event's lock copies, copy c at index c.
func lockKeys(eid eventID) []map[string]types.AttributeValue {
	ks := make([]map[string]types.AttributeValue, lockCopies)
	for c := range lockCopies {
		ks[c] = pkKey(lockPK(eid, c), lockSK)
	}
	return ks
}

// readLocks reads an event's lock copies consistently (one BatchGetItem), by copy. A copy
// that does not exist is missing from the map.
func (s *Store) readLocks(ctx context.Context, eid eventID) (map[int]lockRow, error) {
	locks := make(map[int]lockRow, lockCopies)
	byPK := make(map[string]int, lockCopies)
	for c := range lockCopies {
		byPK[lockPK(eid, c)] = c
	}
	err := s.batchGet(ctx, lockKeys(eid), func(item map[string]types.AttributeValue) error {
		var row lockRow
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

// lockSync is the update that brings a copy forward to ev's fields and rev. It fails its
// condition on a copy already at that rev or later.
func lockSync(ev eventRow) (expression.Expression, error) {
	return expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("name"), expression.Value(ev.Name)).
			Set(expression.Name("startsAt"), expression.Value(ev.StartsAt)).
			Set(expression.Name("state"), expression.Value(ev.State)).
			Set(expression.Name("cardVersion"), expression.Value(ev.CardVersion)).
			Set(expression.Name("rev"), expression.Value(ev.Rev))).
		WithCondition(expression.AttributeExists(expression.Name(attrPK)).
			And(expression.Name("rev").LessThan(expression.Value(ev.Rev)))).Build()
}

// syncLocks brings every lock copy of ev's event that is behind ev.Rev forward to ev (the
// event row as it is in the table at that rev). behind lists the copies to write (nil:
// all). One transaction when nothing else holds the copies; otherwise (other transactions
// in flight on them, as during a submit rush, or a copy already ahead) one conditional
// update per copy, which the SDK retries on a conflict. A copy already at ev.Rev or later
// is left as it is. Events without lock copies (layoutLegacy) have nothing to sync.
func (s *Store) syncLocks(ctx context.Context, ev eventRow, behind []int) error {
	if ev.Layout == layoutLegacy {
		return nil
	}
	if behind == nil {
		behind = make([]int, lockCopies)
		for c := range behind {
			behind[c] = c
		}
	}
	if len(behind) == 0 {
		return nil
	}
	expr, err := lockSync(ev)
	if err != nil {
		return fmt.Errorf("dynamo: sync lock copies %s: %w", ev.ID, err)
	}
	update := func(c int) *types.Update {
		return &types.Update{
			TableName: aws.String(s.table), Key: pkKey(lockPK(eventID(ev.ID), c), lockSK),
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}
	}
	items := make([]types.TransactWriteItem, len(behind))
	for i, c := range behind {
		items[i] = types.TransactWriteItem{Update: update(c)}
	}
	if err := s.transact(ctx, items); err == nil {
		return nil
	} else if _, cancelled := cancellationReasons(err); !cancelled {
		return fmt.Errorf("dynamo: sync lock copies %s: %w", ev.ID, err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(lockWorkers)
	for _, c := range behind {
		g.Go(func() error {
			u := update(c)
			_, err := s.db.UpdateItem(gctx, &dynamodb.UpdateItemInput{
				TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
				ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
				ExpressionAttributeValues: u.ExpressionAttributeValues,
			})
			if isConditionFailed(err) {
				return nil // already there (or further)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("dynamo: sync lock copies %s: %w", ev.ID, err)
	}
	return nil
}

// ensureLocks makes sure every lock copy of the event row ev (read consistently) is at
// its rev or later: one consistent read of the copies, and a sync of those behind (a sync
// cut off earlier). Admin changes call it before they write.
func (s *Store) ensureLocks(ctx context.Context, ev eventRow) error {
	if ev.Layout == layoutLegacy {
		return nil
	}
	locks, err := s.readLocks(ctx, eventID(ev.ID))
	if err != nil {
		return err
	}
	behind := []int{}
	for c := range lockCopies {
		if l, ok := locks[c]; ok && l.Rev < ev.Rev {
			behind = append(behind, c)
		}
	}
	return s.syncLocks(ctx, ev, behind)
}

// getEventRow reads an event row consistently; NOT_FOUND if there is none.
func (s *Store) getEventRow(ctx context.Context, eid eventID) (eventRow, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eid)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return eventRow{}, fmt.Errorf("dynamo: get event %s: %w", eid, err)
	}
	if out.Item == nil {
		return eventRow{}, domain.Errorf(domain.CodeNotFound, "event %q not found", eid)
	}
	var row eventRow
	if err := row.decode(out.Item); err != nil {
		return eventRow{}, fmt.Errorf("dynamo: get event %s: %w", eid, err)
	}
	return row, nil
}

// revIs is the condition that an event row's rev is r (0: a row written before revs
// existed, which has none).
func revIs(r int) expression.ConditionBuilder {
	if r == 0 {
		return expression.AttributeNotExists(expression.Name("rev")).Or(expression.Name("rev").Equal(expression.Value(0)))
	}
	return expression.Name("rev").Equal(expression.Value(r))
}
