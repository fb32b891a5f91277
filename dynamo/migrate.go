package dynamo

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
)

// Migration of tables written before issue 12 (admin migrate). Such a table has, per
// event, no lock copies and its predictions' index entries in the event's own GSI
// partition, counted on COUNT#… items; its standings' index entries in the season's own
// partition; no scoring checkpoints and no score histograms. Migrate brings it to the
// sharded layout (keys.go) while the API keeps serving it:
//
//  1. Standings, season by season: each standing's GSI_PK moves to its shard (one
//     conditional UpdateItem each: `GSI_PK = <the season's partition>`).
//  2. Each event, in three steps recorded on its row (eventRow.Layout), so that a run cut
//     off anywhere goes on from there when started again:
//     - layoutLegacy → layoutMigrating: the row is marked (conditioned on its rev), then its
//     lock copies are created from it (createLocks). From then on submits work
//     (they count on the copies; a replaced legacy prediction is counted by its submit);
//     scoring answers UNAVAILABLE until the event is sharded.
//     - the predictions still in the event's own partition move to their shards, a batch of
//     one shard's players per transaction: each prediction's GSI_PK and `counted`
//     (conditioned on its version and on still being in the old partition), +n on each
//     lock copy of the batch, and, for predictions already scored for the event's current
//     card version, +n on the shard's scoring checkpoint (so scoring knows they are done).
//     Until the old partition shows no prediction.
//     - the shard and season histograms are rebuilt from the moved scores (rebuildRanks),
//     then one transaction marks the row sharded (conditioned on the card version read and
//     on the layout) and deletes the COUNT#… items.
//
// Every write is conditioned, so running it again, or concurrently, changes nothing more.
// Run it when no scoring runs (rebuildRanks must not race a scoring transaction).

// MigrateReport says what Migrate did.
type MigrateReport struct {
	Seasons     int // seasons whose standings were looked at
	Standings   int // standings moved to their shards
	Events      int // events looked at
	EventsMoved int // events brought to the sharded layout by this run
	Predictions int // predictions moved to their shards (and counted on their lock copies)
	// LeagueCopies: member rows of leagues joined before copies existed that got copies of
	// their members' standings (MigrateLeagueCopies).
	LeagueCopies int
}

// migrateBatch is the most predictions moved in one transaction: with at most 4 lock
// copies (those of one shard) and one checkpoint, ≤ 100 items.
const migrateBatch = maxTransactItems - 4 - 1

// Migrate brings a table written before issue 12 to the sharded layout (see above). log
// (may be nil) receives one line per step. It is idempotent and resumable.
func (s *Store) Migrate(ctx context.Context, log func(format string, args ...any)) (MigrateReport, error) {
	var rep MigrateReport
	if log == nil {
		log = func(string, ...any) {}
	}
	rows, err := s.allEventRows(ctx)
	if err != nil {
		return rep, err
	}
	seasons := map[int]bool{}
	for _, r := range rows {
		ev, err := r.toDomain()
		if err != nil {
			return rep, fmt.Errorf("dynamo: migrate: event %s: %w", r.ID, err)
		}
		seasons[ev.Season()] = true
	}
	for _, season := range slices.Sorted(maps.Keys(seasons)) {
		n, err := s.migrateStandings(ctx, season)
		rep.Seasons++
		rep.Standings += n
		if err != nil {
			return rep, err
		}
		log("season %d: %d standings moved to their shards", season, n)
	}
	for _, r := range rows {
		rep.Events++
		if r.Layout == layoutSharded {
			continue
		}
		n, err := s.migrateEvent(ctx, eventID(r.ID))
		rep.Predictions += n
		if err != nil {
			return rep, err
		}
		rep.EventsMoved++
		log("event %s: %d predictions moved to their shards; sharded", r.ID, n)
	}
	n, err := s.MigrateLeagueCopies(ctx)
	rep.LeagueCopies = n
	if err != nil {
		return rep, err
	}
	if n > 0 {
		log("leagues: %d member rows got copies of their standings", n)
	}
	return rep, nil
}

// allEventRows reads every event row (consistent Query of PK = EVENT).
func (s *Store) allEventRows(ctx context.Context) ([]eventRow, error) {
	q, err := s.newQuery("", expression.Key(attrPK).Equal(expression.Value(eventsPK)), 0, true)
	if err != nil {
		return nil, err
	}
	q.ConsistentRead = aws.Bool(true)
	var rows []eventRow
	err = s.queryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		if itemType(item) != typeEvent {
			return true, nil
		}
		var r eventRow
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return false, err
		}
		rows = append(rows, r)
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("dynamo: migrate: list events: %w", err)
	}
	return rows, nil
}

// migrateStandings moves the standings of season still in the season's own GSI partition
// to their shards, until the index shows none there; it returns how many it moved.
func (s *Store) migrateStandings(ctx context.Context, season int) (int, error) {
	legacy := seasonGSIPK(season)
	moved := 0
	for {
		var keys []keys
		q, err := s.newQuery(IndexName, expression.Key(attrGSIPK).Equal(expression.Value(legacy)), 0, true)
		if err != nil {
			return moved, err
		}
		err = s.queryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
			if itemType(item) == typeStanding {
				keys = append(keys, itemKeys(item))
			}
			return len(keys) < 1000, nil
		})
		if err != nil {
			return moved, fmt.Errorf("dynamo: migrate standings %d: %w", season, err)
		}
		if len(keys) == 0 {
			return moved, nil
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(scoreShards)
		counts := make([]bool, len(keys))
		for i, k := range keys {
			g.Go(func() error {
				uid, err := userIDFromPK(k.PK)
				if err != nil {
					return err
				}
				expr, err := expression.NewBuilder().
					WithUpdate(expression.Set(expression.Name(attrGSIPK), expression.Value(seasonShardPK(season, scoreShard(uid))))).
					WithCondition(expression.Name(attrGSIPK).Equal(expression.Value(legacy))).Build()
				if err != nil {
					return err
				}
				_, err = s.db.UpdateItem(gctx, &dynamodb.UpdateItemInput{
					TableName: aws.String(s.table), Key: pkKey(k.PK, k.SK),
					UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
					ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
				})
				if isConditionFailed(err) {
					return nil // moved already (the index showed it late)
				}
				counts[i] = err == nil
				return err
			})
		}
		err = g.Wait()
		for _, c := range counts {
			if c {
				moved++
			}
		}
		if err != nil {
			return moved, fmt.Errorf("dynamo: migrate standings %d: %w", season, err)
		}
	}
}

// itemKeys returns an item's PK and SK.
func itemKeys(item map[string]types.AttributeValue) keys {
	return keys{PK: itemString(item, attrPK), SK: itemString(item, attrSK)}
}

// migrateEvent brings one event from whatever layout step it is at to layoutSharded and
// returns how many predictions it moved.
func (s *Store) migrateEvent(ctx context.Context, eid eventID) (int, error) {
	row, err := s.getEventRow(ctx, eid)
	if err != nil {
		return 0, err
	}
	if row.Layout == layoutLegacy {
		if err := s.startMigration(ctx, row); err != nil {
			return 0, err
		}
		if row, err = s.getEventRow(ctx, eid); err != nil {
			return 0, err
		}
	}
	if row.Layout == layoutSharded {
		return 0, nil
	}
	// The copies exist and are current (a run cut off while creating them finishes here).
	if err := s.ensureLocks(ctx, row); err != nil {
		return 0, err
	}
	moved, err := s.movePredictions(ctx, row)
	if err != nil {
		return moved, err
	}
	ev, err := row.toDomain()
	if err != nil {
		return moved, err
	}
	if ev.Stored != domain.StateUpcoming {
		// Scored predictions may exist (SCORED, or a run cut off before issue 12): the
		// histograms are built from them.
		if err := s.rebuildRanks(ctx, eid, ev.Season()); err != nil {
			return moved, err
		}
	}
	return moved, s.finishMigration(ctx, eid)
}

// startMigration marks the row layoutMigrating with the store's lock-copy count
// (conditioned on its rev and layout as read) and creates the event's lock copies.
func (s *Store) startMigration(ctx context.Context, row eventRow) error {
	next := row
	next.Rev, next.Layout, next.LockCopies = row.Rev+1, layoutMigrating, s.lockCopies
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("rev"), expression.Value(next.Rev)).
			Set(expression.Name("layout"), expression.Value(next.Layout)).
			Set(expression.Name("lockCopies"), expression.Value(next.LockCopies))).
		WithCondition(revIs(row.Rev).And(expression.AttributeNotExists(expression.Name("layout")).
			Or(expression.Name("layout").Equal(expression.Value(layoutLegacy))))).Build()
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eventID(row.ID))),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if isConditionFailed(err) {
		// Changed since it was read (an admin edit, or another migrate run): the caller
		// reads it again and goes on from what it finds.
		return nil
	}
	if err != nil {
		return fmt.Errorf("dynamo: migrate event %s: %w", row.ID, err)
	}
	return s.ensureLocks(ctx, next)
}

// movePredictions moves the event's predictions still in its own GSI partition to their
// shards (see Migrate), until the index shows none there; it returns how many it moved.
func (s *Store) movePredictions(ctx context.Context, row eventRow) (int, error) {
	eid := eventID(row.ID)
	moved := 0
	for {
		var preds []predictionRow
		q, err := s.newQuery(IndexName, expression.Key(attrGSIPK).Equal(expression.Value(eventPK(eid))).
			And(expression.Key(attrGSISK).GreaterThan(expression.Value(cardUpper))), 0, true)
		if err != nil {
			return moved, err
		}
		err = s.queryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
			if itemType(item) != typePrediction {
				return true, nil
			}
			var p predictionRow
			if err := attributevalue.UnmarshalMap(item, &p); err != nil {
				return false, err
			}
			preds = append(preds, p)
			return len(preds) < 1000, nil
		})
		if err != nil {
			return moved, fmt.Errorf("dynamo: migrate event %s: predictions: %w", row.ID, err)
		}
		if len(preds) == 0 {
			return moved, nil
		}
		byShard := map[int][]predictionRow{}
		for _, p := range preds {
			sh := scoreShard(userID(p.UserID))
			byShard[sh] = append(byShard[sh], p)
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(scoreShards)
		done := make([]int, scoreShards)
		for sh, ps := range byShard {
			g.Go(func() error {
				for start := 0; start < len(ps); start += migrateBatch {
					n, err := s.moveBatch(gctx, row, sh, ps[start:min(start+migrateBatch, len(ps))])
					done[sh] += n
					if err != nil {
						return err
					}
				}
				return nil
			})
		}
		err = g.Wait()
		for _, n := range done {
			moved += n
		}
		if err != nil {
			return moved, fmt.Errorf("dynamo: migrate event %s: %w", row.ID, err)
		}
	}
}

// moveBatch moves batch (predictions of shard sh, as the index showed them) in one
// transaction, reading them again consistently and retrying when one changed meanwhile
// (a submit replaced it: then it is in its shard already and counted). It returns how many
// it moved.
func (s *Store) moveBatch(ctx context.Context, row eventRow, sh int, batch []predictionRow) (int, error) {
	eid := eventID(row.ID)
	legacy := eventPK(eid)
	for attempt := 1; ; attempt++ {
		var items []types.TransactWriteItem
		copies := map[int]int{}
		scored := 0
		for _, p := range batch {
			uid := userID(p.UserID)
			expr, err := expression.NewBuilder().
				WithUpdate(expression.Set(expression.Name(attrGSIPK), expression.Value(eventShardPK(eid, sh))).
					Set(expression.Name("counted"), expression.Value(true)).
					Set(expression.Name("version"), expression.Value(p.Version+1))).
				WithCondition(versionIs(p.Version).And(expression.Name(attrGSIPK).Equal(expression.Value(legacy)))).Build()
			if err != nil {
				return 0, err
			}
			items = append(items, types.TransactWriteItem{Update: &types.Update{
				TableName: aws.String(s.table), Key: pkKey(p.PK, p.SK),
				UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			}})
			if !p.Counted {
				copies[lockCopy(uid, row.copies())]++
			}
			if p.ScoredWith != nil && *p.ScoredWith == row.CardVersion {
				scored++
			}
		}
		if len(items) == 0 {
			return 0, nil
		}
		for _, c := range slices.Sorted(maps.Keys(copies)) {
			expr, err := expression.NewBuilder().
				WithUpdate(expression.Add(expression.Name("predictions"), expression.Value(copies[c]))).
				WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
			if err != nil {
				return 0, err
			}
			items = append(items, types.TransactWriteItem{Update: &types.Update{
				TableName: aws.String(s.table), Key: pkKey(lockPK(eid, c), lockSK),
				UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			}})
		}
		if scored > 0 {
			// Scored for the card as it is: scoring will not write them again, so its
			// checkpoint counts them done now.
			expr, err := expression.NewBuilder().
				WithUpdate(expression.Set(expression.Name(attrType), expression.Value(typeCheckpoint)).
					Set(expression.Name("cardVersion"), expression.Value(row.CardVersion)).
					Set(expression.Name("after"), expression.IfNotExists(expression.Name("after"), expression.Value(""))).
					Add(expression.Name("done"), expression.Value(scored))).
				WithCondition(expression.AttributeNotExists(expression.Name(attrPK)).
					Or(expression.Name("cardVersion").Equal(expression.Value(row.CardVersion)))).Build()
			if err != nil {
				return 0, err
			}
			items = append(items, types.TransactWriteItem{Update: &types.Update{
				TableName: aws.String(s.table), Key: pkKey(eventPK(eid), checkpointSK(sh)),
				UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			}})
		}
		err := s.transactRetry(ctx, items)
		if err == nil {
			return len(batch), nil
		}
		if _, cancelled := cancellationReasons(err); !cancelled || attempt == maxAttempts {
			return 0, fmt.Errorf("move predictions of shard %d: %w", sh, err)
		}
		// Something changed since the index was read: read the batch again from the table
		// and keep what is still in the old partition.
		if batch, err = s.rereadLegacy(ctx, batch, legacy); err != nil {
			return 0, err
		}
	}
}

// rereadLegacy reads batch's predictions consistently and returns those still indexed in
// partition legacy.
func (s *Store) rereadLegacy(ctx context.Context, batch []predictionRow, legacy string) ([]predictionRow, error) {
	ks := make([]map[string]types.AttributeValue, len(batch))
	for i, p := range batch {
		ks[i] = pkKey(p.PK, p.SK)
	}
	var out []predictionRow
	err := s.batchGet(ctx, ks, func(item map[string]types.AttributeValue) error {
		var p predictionRow
		if err := attributevalue.UnmarshalMap(item, &p); err != nil {
			return err
		}
		if p.GSIPK == legacy {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// finishMigration marks the event sharded and deletes its COUNT#… items, in one transaction
// conditioned on the layout and card version read. (A SCORED event's checkpoints then count
// every prediction scored for its card version; a prediction scored before scores carried
// their card version is re-stamped by the next scoreEvent, which completes then.)
func (s *Store) finishMigration(ctx context.Context, eid eventID) error {
	card, err := s.readCard(ctx, string(eid), true)
	if err != nil {
		return err
	}
	if card.row.Layout == layoutSharded {
		return nil
	}
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("layout"), expression.Value(layoutSharded))).
		WithCondition(expression.Name("layout").Equal(expression.Value(layoutMigrating)).
			And(expression.Name("cardVersion").Equal(expression.Value(card.ev.CardVersion)))).Build()
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{{Update: &types.Update{
		TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eid)),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}}
	for shard := range card.legacyCounts {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			TableName: aws.String(s.table), Key: pkKey(eventPK(eid), countSK(shard)),
		}})
	}
	err = s.transactRetry(ctx, items)
	if _, cancelled := cancellationReasons(err); cancelled {
		return domain.Errorf(domain.CodeConflict, "event %q changed while it was being migrated (a card edit): run admin migrate again", eid)
	}
	if err != nil {
		return fmt.Errorf("dynamo: migrate event %s: finish: %w", eid, err)
	}
	s.forgetEvent(eid)
	return nil
}
