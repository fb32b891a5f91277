package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
)

// SubmitPrediction creates or replaces the caller's prediction for an event. It reads the
// card (its index key range; read again from the table if the index showed it half
// updated) and, in parallel, the caller's profile and current prediction (one consistent
// BatchGetItem). The write is one transaction: a ConditionCheck on the event (still
// UPCOMING, start still ahead, same card version, name and start as read), the Put of the
// prediction (conditioned on the version read, or on not existing yet), the caller's
// profile (created from the token's name on a first write, or checked unchanged so the
// copied name is current) and, for a first prediction, +1 on the event's prediction count
// (one shard of it). Another transaction in flight on the same items is waited out and
// retried, never reported as a conflict.
//
// Returns NOT_FOUND for an unknown event, BAD_USER_INPUT for picks that do not fit the card,
// LOCKED once the event has started or left UPCOMING or the prediction is scored, CONFLICT
// if the card changed after it was read, and UNAVAILABLE if other writes kept the items
// busy.
func (s *Store) SubmitPrediction(ctx context.Context, caller domain.UserRef, event string, picks []domain.Pick) (domain.Prediction, error) {
	uid, err := parseUserID(caller.ID)
	if err != nil {
		return domain.Prediction{}, err
	}
	eid, err := parseEventID(event)
	if err != nil {
		return domain.Prediction{}, err
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		var (
			ev   domain.Event
			user *userRow
			old  *predictionRow
		)
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() error {
			var err error
			ev, err = s.readEvent(gctx, eid, nil) // never the read cache: see readcache.go
			return err
		})
		g.Go(func() error {
			var err error
			user, old, err = s.getUserAndPrediction(gctx, uid, eid)
			return err
		})
		if err := g.Wait(); err != nil {
			return domain.Prediction{}, err
		}
		for range maxAttempts {
			now := s.now()
			if ev.Locked(now) {
				return domain.Prediction{}, domain.Errorf(domain.CodeLocked, "event %q is locked: picks closed at %s", event, formatTime(ev.StartsAt))
			}
			if old != nil && old.Points != nil {
				return domain.Prediction{}, domain.Errorf(domain.CodeLocked, "your prediction for event %q is already scored", ev.ID)
			}
			clean, err := domain.ValidatePicks(ev.Matches, picks)
			if err != nil {
				return domain.Prediction{}, err
			}
			p, current, err := s.writePrediction(ctx, uid, caller.Name, user, old, ev, clean, now)
			if err != nil || current == nil {
				return p, err
			}
			if !current.retry {
				break // the prediction or the profile changed: read them again
			}
			// Same card, but the event row read was older than the table's (name or start
			// changed): go on with the row the failed condition returned.
			ev.Name, ev.StartsAt, ev.Stored = current.event.Name, current.event.StartsAt, current.event.Stored
		}
	}
	return domain.Prediction{}, domain.Errorf(domain.CodeConflict, "your prediction or profile kept changing; try again")
}

// getUserAndPrediction reads a user's profile and their prediction for an event with one
// consistent BatchGetItem; either is nil if absent.
func (s *Store) getUserAndPrediction(ctx context.Context, uid userID, eid eventID) (*userRow, *predictionRow, error) {
	var (
		user *userRow
		pred *predictionRow
	)
	keys := []map[string]types.AttributeValue{pkKey(userPK(uid), userSK), pkKey(userPK(uid), eventSK(eid))}
	err := s.batchGet(ctx, keys, func(item map[string]types.AttributeValue) error {
		switch itemType(item) {
		case typeUser:
			user = &userRow{}
			return attributevalue.UnmarshalMap(item, user)
		case typePrediction:
			pred = &predictionRow{}
			return attributevalue.UnmarshalMap(item, pred)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("dynamo: get user and prediction %s/%s: %w", uid, eid, err)
	}
	return user, pred, nil
}

// submitRetry says why a submit transaction failed in a way the submit can recover from.
type submitRetry struct {
	// retry: the event row changed but not its card and it is still open; event is the
	// row as the table holds it. Otherwise the prediction or the profile changed.
	retry bool
	event domain.Event
}

// writePrediction runs the submit transaction. A non-nil *submitRetry with a nil error
// means the transaction failed on something worth another attempt.
func (s *Store) writePrediction(ctx context.Context, uid userID, tokenName string, user *userRow, old *predictionRow, ev domain.Event, picks []domain.Pick, now time.Time) (domain.Prediction, *submitRetry, error) {
	eid := eventID(ev.ID)
	wrap := func(err error) error { return fmt.Errorf("dynamo: put prediction %s/%s: %w", uid, eid, err) }
	var userItem types.TransactWriteItem
	if user == nil {
		name, err := domain.CleanText("name", tokenName, domain.MaxUserNameLen)
		if err != nil {
			name = string(uid)
		}
		row := s.newUserRow(uid, name)
		user = &row
		if userItem, err = s.put(row, false); err != nil {
			return domain.Prediction{}, nil, wrap(err)
		}
	} else {
		expr, err := expression.NewBuilder().WithCondition(expression.Name("nameVersion").Equal(expression.Value(user.NameVersion))).Build()
		if err != nil {
			return domain.Prediction{}, nil, wrap(err)
		}
		userItem = types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.table), Key: pkKey(userPK(uid), userSK),
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}}
	}

	row := predictionRow{
		keys:            keys{PK: userPK(uid), SK: eventSK(eid)},
		indexKeys:       indexKeys{GSIPK: eventPK(eid), GSISK: pendingSK(uid)},
		Type:            typePrediction,
		UserID:          string(uid),
		UserName:        user.Name,
		UserNameVersion: user.NameVersion,
		EventID:         ev.ID,
		EventName:       ev.Name,
		EventStartsAt:   formatTime(ev.StartsAt),
		Season:          ev.Season(),
		Picks:           make([]pickRow, len(picks)),
		UpdatedAt:       formatTime(now),
		Version:         1,
	}
	for i, p := range picks {
		row.Picks[i] = pickRow{MatchID: p.MatchID, Team: p.Team}
	}
	// A first prediction must not exist yet; a replacement must be the version read, still
	// unscored.
	predCond := expression.AttributeNotExists(expression.Name(attrPK))
	if old != nil {
		row.Version = old.Version + 1
		predCond = versionIs(old.Version).And(expression.AttributeNotExists(expression.Name("points")))
	}
	item, err := attributevalue.MarshalMap(row)
	if err != nil {
		return domain.Prediction{}, nil, wrap(err)
	}
	open, err := expression.NewBuilder().WithCondition(
		expression.Name("state").Equal(expression.Value(string(domain.StateUpcoming))).
			And(expression.Name("startsAt").GreaterThan(expression.Value(formatTime(now)))).
			And(expression.Name("cardVersion").Equal(expression.Value(ev.CardVersion))).
			And(expression.Name("name").Equal(expression.Value(ev.Name))).
			And(expression.Name("startsAt").Equal(expression.Value(formatTime(ev.StartsAt))))).Build()
	if err != nil {
		return domain.Prediction{}, nil, wrap(err)
	}
	putExpr, err := expression.NewBuilder().WithCondition(predCond).Build()
	if err != nil {
		return domain.Prediction{}, nil, wrap(err)
	}
	items := []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eid)),
			ConditionExpression: open.Condition(), ExpressionAttributeNames: open.Names(), ExpressionAttributeValues: open.Values(),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
		{Put: &types.Put{
			TableName: aws.String(s.table), Item: item,
			ConditionExpression: putExpr.Condition(), ExpressionAttributeNames: putExpr.Names(), ExpressionAttributeValues: putExpr.Values(),
		}},
		userItem,
	}
	if old == nil {
		count, err := s.countIncrement(eid, uid)
		if err != nil {
			return domain.Prediction{}, nil, wrap(err)
		}
		items = append(items, count)
	}
	err = s.transactRetry(ctx, items)
	if reasons, cancelled := cancellationReasons(err); cancelled {
		switch {
		case reasonCode(reasons, 0) == "ConditionalCheckFailed":
			return submitRefusal(ev, reasons[0].Item, now)
		case reasonCode(reasons, 1) == "ConditionalCheckFailed", reasonCode(reasons, 2) == "ConditionalCheckFailed":
			return domain.Prediction{}, &submitRetry{}, nil // read the prediction and the profile again
		default:
			return domain.Prediction{}, nil, wrap(err)
		}
	}
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeUnavailable {
			return domain.Prediction{}, nil, err
		}
		return domain.Prediction{}, nil, wrap(err)
	}
	p, err := row.toDomain()
	return p, nil, err
}

// countIncrement is the +1 of a first prediction on its player's shard of the event's
// prediction count. (Issue 12 may spread the count over more shards: countShards.)
func (s *Store) countIncrement(eid eventID, uid userID) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithUpdate(
		expression.Set(expression.Name(attrType), expression.Value(typeCount)).
			Add(expression.Name("predictions"), expression.Value(1))).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: pkKey(eventPK(eid), countSK(countShard(uid))),
		UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// versionIs is the condition that an item's version is v (0: an item written before
// versions existed, which has none).
func versionIs(v int) expression.ConditionBuilder {
	if v == 0 {
		return expression.AttributeNotExists(expression.Name("version")).Or(expression.Name("version").Equal(expression.Value(0)))
	}
	return expression.Name("version").Equal(expression.Value(v))
}

// submitRefusal explains why the event's condition failed, from the item as it was: LOCKED
// if it has locked, CONFLICT if its card changed; otherwise only its name or start moved
// (the read was older than the table) and the submit may go on with the row returned.
func submitRefusal(read domain.Event, old map[string]types.AttributeValue, now time.Time) (domain.Prediction, *submitRetry, error) {
	if old == nil {
		return domain.Prediction{}, nil, domain.Errorf(domain.CodeLocked, "event %q is locked", read.ID)
	}
	var row eventRow
	if err := attributevalue.UnmarshalMap(old, &row); err != nil {
		return domain.Prediction{}, nil, domain.Errorf(domain.CodeLocked, "event %q is locked", read.ID)
	}
	if row.State != string(domain.StateUpcoming) || row.StartsAt <= formatTime(now) {
		return domain.Prediction{}, nil, domain.Errorf(domain.CodeLocked, "event %q is locked: picks are closed", read.ID)
	}
	if row.CardVersion != read.CardVersion {
		return domain.Prediction{}, nil, domain.Errorf(domain.CodeConflict, "the card of event %q changed while you picked; reload it", read.ID)
	}
	ev, err := row.toDomain()
	if err != nil {
		return domain.Prediction{}, nil, err
	}
	return domain.Prediction{}, &submitRetry{retry: true, event: ev}, nil
}
