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

// SubmitPrediction creates or replaces the caller's prediction for an event. The card is
// read once (its key range only); the write is one transaction of the prediction's Put, a
// ConditionCheck on the event (still UPCOMING, start still in the future, card unchanged
// since it was read) and the caller's profile (created from the token's name on a first
// write, or checked unchanged so the copied name is current).
//
// Returns NOT_FOUND for an unknown event, BAD_USER_INPUT for picks that do not fit the card,
// LOCKED once the event has started or left UPCOMING or the prediction is scored, and
// CONFLICT if the card changed after it was read.
func (s *Store) SubmitPrediction(ctx context.Context, caller domain.UserRef, event string, picks []domain.Pick) (domain.Prediction, error) {
	uid, err := parseUserID(caller.ID)
	if err != nil {
		return domain.Prediction{}, err
	}
	if _, err := parseEventID(event); err != nil {
		return domain.Prediction{}, err
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		var ev domain.Event
		var user *userRow
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() error { ev, err = s.GetEvent(gctx, event); return err })
		g.Go(func() error {
			var err error
			user, err = s.getUserRow(gctx, uid)
			return err
		})
		if err := g.Wait(); err != nil {
			return domain.Prediction{}, err
		}
		now := s.now()
		if ev.Locked(now) {
			return domain.Prediction{}, domain.Errorf(domain.CodeLocked, "event %q is locked: picks closed at %s", event, formatTime(ev.StartsAt))
		}
		clean, err := domain.ValidatePicks(ev.Matches, picks)
		if err != nil {
			return domain.Prediction{}, err
		}
		p, retry, err := s.writePrediction(ctx, uid, caller.Name, user, ev, clean, now)
		if retry {
			continue
		}
		return p, err
	}
	return domain.Prediction{}, domain.Errorf(domain.CodeConflict, "the profile kept changing; try again")
}

// writePrediction runs the submit transaction. retry is true when only the profile changed
// between read and write.
func (s *Store) writePrediction(ctx context.Context, uid userID, tokenName string, user *userRow, ev domain.Event, picks []domain.Pick, now time.Time) (domain.Prediction, bool, error) {
	eid := eventID(ev.ID)
	var userItem types.TransactWriteItem
	if user == nil {
		name, err := domain.CleanText("name", tokenName, domain.MaxUserNameLen)
		if err != nil {
			name = string(uid)
		}
		row := s.newUserRow(uid, name)
		user = &row
		if userItem, err = s.put(row, false); err != nil {
			return domain.Prediction{}, false, fmt.Errorf("dynamo: put prediction %s/%s: %w", uid, eid, err)
		}
	} else {
		expr, err := expression.NewBuilder().WithCondition(expression.Name("nameVersion").Equal(expression.Value(user.NameVersion))).Build()
		if err != nil {
			return domain.Prediction{}, false, fmt.Errorf("dynamo: put prediction %s/%s: %w", uid, eid, err)
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
	}
	for i, p := range picks {
		row.Picks[i] = pickRow{MatchID: p.MatchID, Team: p.Team}
	}
	item, err := attributevalue.MarshalMap(row)
	if err != nil {
		return domain.Prediction{}, false, fmt.Errorf("dynamo: put prediction %s/%s: %w", uid, eid, err)
	}
	open, err := expression.NewBuilder().WithCondition(
		expression.Name("state").Equal(expression.Value(string(domain.StateUpcoming))).
			And(expression.Name("startsAt").GreaterThan(expression.Value(formatTime(now)))).
			And(expression.Name("cardVersion").Equal(expression.Value(ev.CardVersion)))).Build()
	if err != nil {
		return domain.Prediction{}, false, fmt.Errorf("dynamo: put prediction %s/%s: %w", uid, eid, err)
	}
	unscored, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name("points"))).Build()
	if err != nil {
		return domain.Prediction{}, false, fmt.Errorf("dynamo: put prediction %s/%s: %w", uid, eid, err)
	}
	items := []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eid)),
			ConditionExpression: open.Condition(), ExpressionAttributeNames: open.Names(), ExpressionAttributeValues: open.Values(),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
		{Put: &types.Put{
			TableName: aws.String(s.table), Item: item,
			ConditionExpression: unscored.Condition(), ExpressionAttributeNames: unscored.Names(),
		}},
		userItem,
	}
	err = s.transact(ctx, items)
	if reasons, cancelled := cancellationReasons(err); cancelled {
		switch {
		case reasonCode(reasons, 0) == "ConditionalCheckFailed":
			return domain.Prediction{}, false, submitRefusal(ev, reasons[0].Item, now)
		case reasonCode(reasons, 1) == "ConditionalCheckFailed":
			return domain.Prediction{}, false, domain.Errorf(domain.CodeLocked, "your prediction for event %q is already scored", ev.ID)
		case reasonCode(reasons, 2) == "ConditionalCheckFailed":
			return domain.Prediction{}, true, nil
		default:
			return domain.Prediction{}, false, domain.Errorf(domain.CodeConflict, "another write to this prediction got there first; try again")
		}
	}
	if err != nil {
		return domain.Prediction{}, false, fmt.Errorf("dynamo: put prediction %s/%s: %w", uid, eid, err)
	}
	p, err := row.toDomain()
	return p, false, err
}

// submitRefusal explains why the event's condition failed, from the item as it was.
func submitRefusal(read domain.Event, old map[string]types.AttributeValue, now time.Time) error {
	if old == nil {
		return domain.Errorf(domain.CodeLocked, "event %q is locked", read.ID)
	}
	var row eventRow
	if err := attributevalue.UnmarshalMap(old, &row); err != nil {
		return domain.Errorf(domain.CodeLocked, "event %q is locked", read.ID)
	}
	if row.State != string(domain.StateUpcoming) || row.StartsAt <= formatTime(now) {
		return domain.Errorf(domain.CodeLocked, "event %q is locked: picks are closed", read.ID)
	}
	return domain.Errorf(domain.CodeConflict, "the card of event %q changed while you picked; reload it", read.ID)
}
