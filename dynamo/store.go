// Package dynamo stores Pick'Em data in one DynamoDB table. It is the only package that
// knows keys, item layouts and the AWS SDK.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/pickem/api/dynamo/table"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
)

// API is the part of the DynamoDB client the store uses. *dynamodb.Client implements it;
// tests wrap it to inject faults.
type API interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	UpdateContinuousBackups(context.Context, *dynamodb.UpdateContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error)
}

// Store reads and writes Pick'Em data in one table.
type Store struct {
	db    API
	table string
	now   func() time.Time
	// scoringBudget bounds one ScoreEvent call (0: none); see WithScoringBudget.
	scoringBudget time.Duration
	cursorKeys    [][]byte
	cursors       *table.Cursors
	// scoringMargin is ScoringMargin (tests change it).
	scoringMargin time.Duration
	// cache is the read cache (WithReadCache); nil: none.
	cache *readCache
	// shards is how many shards the events and seasons this store creates get
	// (WithScoreShards; default 1).
	shards int
	// known remembers shard counts (shardcount.go).
	known knownShards
	// pace keeps scoring within each partition's throughput (pace.go).
	pace *pacer
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock used for lock checks and timestamps (default time.Now).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithCursorKeys sets the keys that sign page cursors: the first signs, every one verifies
// (to rotate, put a new key first and drop the old one once its cursors no longer matter).
// Each key should have at least CursorKeyMinLen random bytes. Without keys the store signs
// with a random key of its own, so its cursors only open pages on the same store: every
// instance serving one API must share its keys (in Lambda, PICKEM_CURSOR_KEYS).
func WithCursorKeys(keys ...[]byte) Option {
	return func(s *Store) { s.cursorKeys = append([][]byte(nil), keys...) }
}

// New returns a store over table. Every DynamoDB error that trying again later can cure
// (throttling, TransactionConflict, timeouts, resets, the request's deadline; see
// retryable), once the client's own retries are spent, reaches the store's callers as
// UNAVAILABLE.
func New(db API, tableName string, opts ...Option) *Store {
	s := &Store{db: available{db}, table: tableName, now: time.Now, scoringMargin: ScoringMargin, shards: 1, pace: newPacer(PartitionWriteUnits, PartitionReadUnits)}
	for _, o := range opts {
		o(s)
	}
	s.cursors = table.NewCursors(s.cursorKeys)
	return s
}

// Now returns the store's clock reading.
func (s *Store) Now() time.Time { return s.now() }

// Table returns the table name.
func (s *Store) Table() string { return s.table }

// maxTransactItems is DynamoDB's limit on items in one transaction, maxBatchGetKeys on keys
// in one BatchGetItem.
const (
	maxTransactItems = 100
	maxBatchGetKeys  = 100
)

// transact runs one transaction. It refuses to build more than 100 items.
func (s *Store) transact(ctx context.Context, items []types.TransactWriteItem) error {
	if len(items) > maxTransactItems {
		return fmt.Errorf("dynamo: transaction of %d items exceeds %d", len(items), maxTransactItems)
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// maxTransactAttempts bounds transactRetry's attempts: with backoff, about a second and
// a half of waiting at most, typically under one.
const maxTransactAttempts = 8

// transactRetry runs one transaction like transact and runs it again, after a short
// backoff, while it is cancelled only for reasons that retrying can cure: another
// transaction in flight held one of its items (TransactionConflict) or a partition was
// throttled. The conditions are evaluated afresh on every attempt, so a retry never
// overwrites what another writer did meanwhile. When attempts run out the error is
// UNAVAILABLE (retryable by the client). Any other error, and a cancellation for a failed
// condition, is returned as it is.
func (s *Store) transactRetry(ctx context.Context, items []types.TransactWriteItem) error {
	return s.transactAttempts(ctx, items, maxTransactAttempts)
}

// maxSubmitAttempts bounds a submit's attempts (transactAttempts): more than other
// transactions', because at the show's peak minute (~2,800 submits/s over an event's 256
// lock copies) a few submits meet a busy copy many times in a row: the partition-throughput
// model (make scale) found 1 submit in a million reaching its player as UNAVAILABLE after 8
// attempts, none after 12 (bench/results/scale.md). The four more wait at most 4 s more,
// only for those few.
const maxSubmitAttempts = 12

// transactAttempts is transactRetry with at most attempts attempts.
func (s *Store) transactAttempts(ctx context.Context, items []types.TransactWriteItem, attempts int) error {
	for attempt := 1; ; attempt++ {
		err := s.transact(ctx, items)
		reasons, cancelled := cancellationReasons(err)
		if !cancelled || !onlyTransient(reasons) {
			return err
		}
		if attempt == attempts {
			return &domain.Error{Code: domain.CodeUnavailable, Message: "the database is busy with other writes to the same items; try again", Err: err}
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			// The request's deadline came while waiting to try again.
			return &domain.Error{Code: domain.CodeUnavailable, Message: "the database is busy with other writes to the same items; try again", Err: err}
		}
	}
}

// onlyTransient reports whether a cancelled transaction failed only for transient reasons
// (TransactionConflict, throttling) and at least one of them.
func onlyTransient(reasons []types.CancellationReason) bool {
	transient := false
	for i := range reasons {
		switch reasonCode(reasons, i) {
		case "", "None":
		case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
			transient = true
		default:
			return false
		}
	}
	return transient
}

// backoff is the wait before attempt+1: exponential from 25 ms, capped at 1 s, with full
// jitter.
func backoff(attempt int) time.Duration {
	d := min(25*time.Millisecond<<min(attempt-1, 6), time.Second)
	return time.Duration(rand.Int64N(int64(d)) + 1)
}

// put is a Put of row conditioned on the item existing (mustExist) or not existing yet.
func (s *Store) put(row any, mustExist bool) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(row)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	cond := expression.AttributeNotExists(expression.Name(table.AttrPK))
	if mustExist {
		cond = expression.AttributeExists(expression.Name(table.AttrPK))
	}
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(s.table), Item: item,
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(),
	}}, nil
}

// txUpdateIf is an Update of key by upd on cond; when cond fails, the cancellation
// reason carries the item as it was (ALL_OLD).
func (s *Store) txUpdateIf(key map[string]types.AttributeValue, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: key,
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// txDeleteIf is a Delete of key on cond.
func (s *Store) txDeleteIf(key map[string]types.AttributeValue, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(s.table), Key: key, ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// txCheck is a ConditionCheck of cond on key.
func (s *Store) txCheck(key map[string]types.AttributeValue, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(s.table), Key: key, ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// txItems collects the items of a transaction and the first error building one.
type txItems struct {
	items []types.TransactWriteItem
	err   error
}

// add appends item, or keeps err if it is the first error.
func (t *txItems) add(item types.TransactWriteItem, err error) {
	if err != nil {
		if t.err == nil {
			t.err = err
		}
		return
	}
	t.items = append(t.items, item)
}

// updateEach applies one conditional update to every item of ks, in transactions of at
// most 100 items. It stops at the first failed transaction and returns its error.
func (s *Store) updateEach(ctx context.Context, ks []table.Keys, expr expression.Expression) error {
	for start := 0; start < len(ks); start += maxTransactItems {
		batch := ks[start:min(start+maxTransactItems, len(ks))]
		items := make([]types.TransactWriteItem, len(batch))
		for i, k := range batch {
			items[i] = types.TransactWriteItem{Update: &types.Update{
				TableName: aws.String(s.table), Key: table.Key(k.PK, k.SK),
				UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			}}
		}
		if err := s.transact(ctx, items); err != nil {
			return err
		}
	}
	return nil
}

// cancellationReasons returns the per-item reasons of a cancelled transaction, or nil if
// err is not a cancellation. UNAVAILABLE (transactRetry gave up on transient reasons; its
// cause is the last cancellation) is not one: callers must not read it as a failed
// condition.
func cancellationReasons(err error) ([]types.CancellationReason, bool) {
	var tce *types.TransactionCanceledException
	if domain.ErrorCode(err) != domain.CodeUnavailable && errors.As(err, &tce) {
		return tce.CancellationReasons, true
	}
	return nil, false
}

// reasonCode returns the code of reason i, or "" if there is none.
func reasonCode(reasons []types.CancellationReason, i int) string {
	if i < len(reasons) && reasons[i].Code != nil {
		return *reasons[i].Code
	}
	return ""
}

func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// queryEach runs q, following LastEvaluatedKey, and calls fn for each item until fn
// returns false or an error, or the items end. One Query per page of results.
func (s *Store) queryEach(ctx context.Context, q *dynamodb.QueryInput, fn func(item map[string]types.AttributeValue) (bool, error)) error {
	for {
		out, err := s.db.Query(ctx, q)
		if err != nil {
			return err
		}
		for _, item := range out.Items {
			more, err := fn(item)
			if err != nil || !more {
				return err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		q.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// batchGetItems reads keys (consistently or not) in requests of at most 100 keys, retrying
// unprocessed keys, and calls fn for every item found.
func (s *Store) batchGetItems(ctx context.Context, keys []map[string]types.AttributeValue, consistent bool, fn func(map[string]types.AttributeValue) error) error {
	for start := 0; start < len(keys); start += maxBatchGetKeys {
		req := map[string]types.KeysAndAttributes{s.table: {Keys: keys[start:min(start+maxBatchGetKeys, len(keys))], ConsistentRead: aws.Bool(consistent)}}
		for attempt := 1; len(req) > 0; attempt++ {
			out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return err
			}
			for _, item := range out.Responses[s.table] {
				if err := fn(item); err != nil {
					return err
				}
			}
			req = out.UnprocessedKeys
			if len(req) > 0 {
				if err := sleep(ctx, backoff(attempt)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
