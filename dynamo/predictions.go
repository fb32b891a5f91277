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
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// SubmitPrediction creates or replaces the caller's prediction for an event with entry:
// its picks (with their methods), joker and tie-breaker guess, checked against the card read
// and its settings (domain.ValidateEntry). A submit replaces the whole prediction, joker and
// guess included. It reads the card (its index key range; read again from the table if the
// index showed it half updated) and, in parallel, the caller's profile and current
// prediction (one consistent BatchGetItem). The write is one transaction: the lock
// condition (still UPCOMING, start still ahead, same card version, name and start as read)
// on the caller's lock copy of the event — never on the event item, which every submit
// would then hold — and, for a prediction not counted yet, +1 on that copy's count; the Put
// of the prediction (conditioned on the version read, or on not existing yet) in the
// caller's index shard; the caller's profile (created from the token's name on a first
// write, or checked unchanged so the copied name is current). Another transaction in flight
// on the same items is waited out and retried, never reported as a conflict. A copy found
// behind the event row (a sync cut off) is brought forward and the submit tried again.
//
// Returns NOT_FOUND for an unknown event, BAD_USER_INPUT for an entry that does not fit the
// card or its settings (nothing written), LOCKED once the event has started or left
// UPCOMING or the prediction is scored, CONFLICT if the card (its settings included) changed
// after it was read, and UNAVAILABLE if other writes kept the items busy.
func (s *Store) SubmitPrediction(ctx context.Context, caller domain.UserRef, event string, entry domain.Entry) (domain.Prediction, error) {
	uid, err := table.ParseUserID(caller.ID)
	if err != nil {
		return domain.Prediction{}, err
	}
	eid, err := table.ParseEventID(event)
	if err != nil {
		return domain.Prediction{}, err
	}
	for attempt := 0; attempt < ddb.OptimisticAttempts; attempt++ {
		var (
			ev   domain.Event
			row  table.EventRow // the event's row: its shards and lock copies
			user *table.UserRow
			old  *table.PredictionRow
		)
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() error {
			var err error
			ev, row, err = s.readEventRow(gctx, eid, nil) // never the read cache: see ddb.Cache
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
		for range ddb.OptimisticAttempts {
			now := s.now()
			if err := domain.CheckSubmit(ev, old != nil && old.Points != nil, now); err != nil {
				return domain.Prediction{}, err
			}
			clean, err := domain.ValidateEntry(ev, entry)
			if err != nil {
				return domain.Prediction{}, err
			}
			p, current, err := s.writePrediction(ctx, uid, caller.Name, user, old, ev, row, clean, now)
			if err != nil || current == nil {
				return p, err
			}
			if current.synced {
				continue // the lock copies were behind the event row: try again
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
func (s *Store) getUserAndPrediction(ctx context.Context, uid table.UserID, eid table.EventID) (*table.UserRow, *table.PredictionRow, error) {
	var (
		user *table.UserRow
		pred *table.PredictionRow
	)
	keys := []map[string]types.AttributeValue{table.Key(table.UserPK(uid), table.UserSK), table.Key(table.UserPK(uid), table.EventSK(eid))}
	err := s.db.BatchGet(ctx, keys, true, func(item map[string]types.AttributeValue) error {
		switch table.ItemType(item) {
		case table.TypeUser:
			user = &table.UserRow{}
			return attributevalue.UnmarshalMap(item, user)
		case table.TypePrediction:
			pred = &table.PredictionRow{}
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
	// synced: the lock copy was behind the event row and the copies have been brought
	// forward: the same write may be tried again.
	synced bool
}

// writePrediction runs the submit transaction. A non-nil *submitRetry with a nil error
// means the transaction failed on something worth another attempt.
func (s *Store) writePrediction(ctx context.Context, uid table.UserID, tokenName string, user *table.UserRow, old *table.PredictionRow, ev domain.Event, evRow table.EventRow, entry domain.Entry, now time.Time) (domain.Prediction, *submitRetry, error) {
	eid := table.EventID(ev.ID)
	wrap := func(err error) error { return fmt.Errorf("dynamo: put prediction %s/%s: %w", uid, eid, err) }
	var userItem types.TransactWriteItem
	if user == nil {
		name, err := domain.CleanPlayerName(tokenName)
		if err != nil {
			name = string(uid)
		}
		row := table.NewUserRow(uid, name, s.now())
		user = &row
		if userItem, err = s.db.Put(row, table.NotExists()); err != nil {
			return domain.Prediction{}, nil, wrap(err)
		}
	} else {
		var err error
		userItem, err = s.db.Check(table.Key(table.UserPK(uid), table.UserSK), expression.Name("nameVersion").Equal(expression.Value(user.NameVersion)))
		if err != nil {
			return domain.Prediction{}, nil, wrap(err)
		}
	}

	count := old == nil // +1 on the copy: a first prediction
	row := table.PredictionRow{
		Keys:            table.Keys{PK: table.UserPK(uid), SK: table.EventSK(eid)},
		IndexKeys:       table.IndexKeys{GSIPK: table.EventShardPK(eid, uid.Shard(evRow.Shards), evRow.Shards), GSISK: table.PendingSK(uid)},
		Type:            table.TypePrediction,
		UserID:          string(uid),
		UserName:        user.Name,
		UserNameVersion: user.NameVersion,
		EventID:         ev.ID,
		EventName:       ev.Name,
		EventStartsAt:   table.FormatTime(ev.StartsAt),
		Season:          ev.Season(),
		UpdatedAt:       table.FormatTime(now),
		Version:         1,
	}.WithEntry(entry)
	// A first prediction must not exist yet; a replacement must be the version read, still
	// unscored.
	predCond := table.NotExists()
	if old != nil {
		row.Version = old.Version + 1
		predCond = table.VersionIs(old.Version).And(expression.AttributeNotExists(expression.Name("points")))
	}
	lock, err := s.lockItem(eid, uid, ev, evRow.LockCopies, now, count)
	if err != nil {
		return domain.Prediction{}, nil, wrap(err)
	}
	put, err := s.db.Put(row, predCond)
	if err != nil {
		return domain.Prediction{}, nil, wrap(err)
	}
	items := []types.TransactWriteItem{
		lock,
		put,
		userItem,
	}
	err = s.db.TransactAttempts(ctx, items, maxSubmitAttempts)
	if reasons, cancelled := ddb.CancellationReasons(err); cancelled {
		switch {
		case ddb.Failed(reasons, 0):
			return s.submitRefusal(ctx, ev, reasons[0].Item, now)
		case ddb.Failed(reasons, 1), ddb.Failed(reasons, 2):
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
	p, err := row.ToDomain()
	return p, nil, err
}

// lockItem is the submit's item on the lock copy of uid (of the event's copies): the lock
// condition (the event open at now, with the card version, name and start read) as a
// ConditionCheck, or, when count, as the condition of an update adding one prediction to
// the copy's count. The copy's values come back when the condition fails.
func (s *Store) lockItem(eid table.EventID, uid table.UserID, ev domain.Event, copies int, now time.Time, count bool) (types.TransactWriteItem, error) {
	cond := table.OpenAt(now).
		And(expression.Name("cardVersion").Equal(expression.Value(ev.CardVersion))).
		And(expression.Name("name").Equal(expression.Value(ev.Name))).
		And(expression.Name("startsAt").Equal(expression.Value(table.FormatTime(ev.StartsAt))))
	key := table.Key(table.LockPK(eid, uid.LockCopy(copies)), table.LockSK)
	b := expression.NewBuilder().WithCondition(cond)
	if count {
		b = b.WithUpdate(expression.Add(expression.Name("predictions"), expression.Value(1)))
	}
	expr, err := b.Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	if !count {
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.db.Name), Key: key,
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}}, nil
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.db.Name), Key: key, UpdateExpression: expr.Update(),
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// submitRefusal explains why the lock condition failed on the copy, whose values were
// old. A copy that does not exist (the event's creation was cut off before all its copies
// were made) is created, and a copy behind the event row (its rev lower: a sync was cut
// off) brought forward; then the write may be tried again. Otherwise the event row, as the
// table holds it, decides (domain.RefusedSubmit).
func (s *Store) submitRefusal(ctx context.Context, read domain.Event, old map[string]types.AttributeValue, now time.Time) (domain.Prediction, *submitRetry, error) {
	eid := table.EventID(read.ID)
	row, err := s.getEventRow(ctx, eid)
	if domain.ErrorCode(err) == domain.CodeNotFound {
		return domain.Prediction{}, nil, domain.Errorf(domain.CodeLocked, "event %q is locked", read.ID)
	}
	if err != nil {
		return domain.Prediction{}, nil, err
	}
	if old == nil {
		if err := s.ensureLocks(ctx, row); err != nil {
			return domain.Prediction{}, nil, err
		}
		return domain.Prediction{}, &submitRetry{synced: true}, nil
	}
	var lock table.LockRow
	if err := attributevalue.UnmarshalMap(old, &lock); err != nil {
		return domain.Prediction{}, nil, fmt.Errorf("dynamo: put prediction for event %s: lock copy: %w", read.ID, err)
	}
	if lock.Rev < row.Rev {
		if err := s.syncLocks(ctx, row, nil); err != nil {
			return domain.Prediction{}, nil, err
		}
		return domain.Prediction{}, &submitRetry{synced: true}, nil
	}
	ev, err := row.ToDomain()
	if err != nil {
		return domain.Prediction{}, nil, err
	}
	if err := domain.RefusedSubmit(read, ev, now); err != nil {
		return domain.Prediction{}, nil, err
	}
	return domain.Prediction{}, &submitRetry{retry: true, event: ev}, nil
}

// maxSubmitAttempts bounds a submit's attempts (ddb.Table.TransactAttempts): more than other
// transactions', because at the show's peak minute a few submits meet a busy lock copy many
// times in a row. With 12, the peak hour the partition-throughput model replays (make scale,
// bench/results/scale.md) reaches no player as UNAVAILABLE; the attempts beyond the usual
// wait only for those few.
const maxSubmitAttempts = 12

// GetPrediction returns a user's prediction for an event (one consistent GetItem), or
// NOT_FOUND. With withRank, a scored prediction carries its rank in the event when the
// event has a rank table: the table comes from the read cache, or with the prediction in
// one consistent BatchGetItem (for an event dated after today, only once the prediction
// is seen scored).
func (s *Store) GetPrediction(ctx context.Context, user, event string, withRank bool) (domain.Prediction, error) {
	uid, err := table.ParseUserID(user)
	if err != nil {
		return domain.Prediction{}, err
	}
	eid, err := table.ParseEventID(event)
	if err != nil {
		return domain.Prediction{}, err
	}
	key := table.Key(table.UserPK(uid), table.EventSK(eid))
	wrap := func(err error) error { return fmt.Errorf("dynamo: get prediction %s/%s: %w", user, event, err) }
	var row *table.PredictionRow
	var ranks *domain.RankTable
	held, cached := s.cache.Get(rankRef{event: eid}.cacheKey())
	// An event dated after today has no rank table but in the rare case of an early lock
	// and live scoring (then it is read after the prediction, below).
	future := string(eid)[:10] > domain.EventDate(s.now())
	// The reads of the rank table fill its entry: with it held, the prediction alone.
	fill := ddb.WithCacheFill(ctx, rankRef{event: eid}.cacheKey())
	if withRank && !cached && !future {
		// The prediction and its event's rank table in one consistent BatchGetItem: one
		// round trip, not two.
		tables, err := s.rankTables(fill, []rankRef{{event: eid}}, []map[string]types.AttributeValue{key}, func(item map[string]types.AttributeValue) error {
			row = &table.PredictionRow{}
			return attributevalue.UnmarshalMap(item, row)
		})
		if err != nil {
			return domain.Prediction{}, wrap(err)
		}
		ranks = tables[rankRef{event: eid}]
	} else {
		if row, err = ddb.Get[table.PredictionRow](ctx, s.db, key, true); err != nil {
			return domain.Prediction{}, wrap(err)
		}
		if withRank && cached {
			ranks, _ = held.(*domain.RankTable)
		}
	}
	if row == nil {
		return domain.Prediction{}, domain.Errorf(domain.CodeNotFound, "no prediction of user %q for event %q", user, event)
	}
	p, err := row.ToDomain()
	if err != nil {
		return domain.Prediction{}, err
	}
	if withRank && !cached && future && p.Points != nil {
		tables, err := s.rankTables(fill, []rankRef{{event: eid}}, nil, nil)
		if err != nil {
			return domain.Prediction{}, wrap(err)
		}
		ranks = tables[rankRef{event: eid}]
	}
	if ranks != nil && p.Points != nil {
		r := ranks.Rank(*p.Points)
		p.Rank = &r
	}
	return p, nil
}
