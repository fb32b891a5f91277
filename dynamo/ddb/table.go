package ddb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

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

// MaxTransactItems is DynamoDB's limit on items in one transaction, MaxBatchGetKeys on keys
// in one BatchGetItem.
const (
	MaxTransactItems = 100
	MaxBatchGetKeys  = 100
)

// Table is one table on a client: the calls the store makes on it. Its API is the client
// with every error translated (NewTable).
type Table struct {
	API
	// Name is the table's name.
	Name string
}

// NewTable returns the table name on db. Every DynamoDB error that trying again later can
// cure (throttling, TransactionConflict, timeouts, resets, the request's deadline; see
// retryable), once the client's own retries are spent, reaches the table's callers as
// UNAVAILABLE.
func NewTable(db API, name string) *Table { return &Table{API: available{db}, Name: name} }

// Transact runs one transaction. It refuses to build more than 100 items.
func (t *Table) Transact(ctx context.Context, items []types.TransactWriteItem) error {
	if len(items) > MaxTransactItems {
		return fmt.Errorf("dynamo: transaction of %d items exceeds %d", len(items), MaxTransactItems)
	}
	_, err := t.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// maxTransactAttempts bounds TransactRetry's attempts: with backoff, about a second and
// a half of waiting at most, typically under one.
const maxTransactAttempts = 8

// TransactRetry runs one transaction like Transact and runs it again, after a short
// backoff, while it is cancelled only for reasons that retrying can cure: another
// transaction in flight held one of its items (TransactionConflict) or a partition was
// throttled. The conditions are evaluated afresh on every attempt, so a retry never
// overwrites what another writer did meanwhile. When attempts run out the error is
// UNAVAILABLE (retryable by the client). Any other error, and a cancellation for a failed
// condition, is returned as it is.
func (t *Table) TransactRetry(ctx context.Context, items []types.TransactWriteItem) error {
	return t.TransactAttempts(ctx, items, maxTransactAttempts)
}

// TransactAttempts is TransactRetry with at most attempts attempts.
func (t *Table) TransactAttempts(ctx context.Context, items []types.TransactWriteItem, attempts int) error {
	for attempt := 1; ; attempt++ {
		err := t.Transact(ctx, items)
		reasons, cancelled := CancellationReasons(err)
		if !cancelled || !onlyTransient(reasons) {
			return err
		}
		if attempt == attempts {
			return &domain.Error{Code: domain.CodeUnavailable, Message: "the database is busy with other writes to the same items; try again", Err: err}
		}
		if err := Sleep(ctx, Backoff(attempt)); err != nil {
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
		switch ReasonCode(reasons, i) {
		case "", "None":
		case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
			transient = true
		default:
			return false
		}
	}
	return transient
}

// Backoff is the wait before attempt+1: exponential from 25 ms, capped at 1 s, with full
// jitter.
func Backoff(attempt int) time.Duration {
	d := min(25*time.Millisecond<<min(attempt-1, 6), time.Second)
	return time.Duration(rand.Int64N(int64(d)) + 1)
}

// Sleep waits for d, or until ctx is done (its error).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Put is a Put of row (marshalled with attributevalue) on cond.
func (t *Table) Put(row any, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(row)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(t.Name), Item: item,
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// Update is an Update of key by upd on cond.
func (t *Table) Update(key map[string]types.AttributeValue, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(t.Name), Key: key,
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// UpdateIf is an Update of key by upd on cond; when cond fails, the cancellation reason
// carries the item as it was (ALL_OLD).
func (t *Table) UpdateIf(key map[string]types.AttributeValue, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	w, err := t.Update(key, upd, cond)
	if err != nil {
		return w, err
	}
	w.Update.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	return w, nil
}

// DeleteIf is a Delete of key on cond.
func (t *Table) DeleteIf(key map[string]types.AttributeValue, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(t.Name), Key: key, ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// Check is a ConditionCheck of cond on key.
func (t *Table) Check(key map[string]types.AttributeValue, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(t.Name), Key: key, ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// Tx collects the items of a transaction and the first error building one.
type Tx struct {
	Items []types.TransactWriteItem
	Err   error
}

// Add appends item, or keeps err if it is the first error.
func (t *Tx) Add(item types.TransactWriteItem, err error) {
	if err != nil {
		if t.Err == nil {
			t.Err = err
		}
		return
	}
	t.Items = append(t.Items, item)
}

// UpdateEach applies one conditional update (expr) to every item of keys, in
// transactions of at most 100 items. It stops at the first failed transaction and returns
// its error.
func (t *Table) UpdateEach(ctx context.Context, keys []map[string]types.AttributeValue, expr expression.Expression) error {
	for start := 0; start < len(keys); start += MaxTransactItems {
		batch := keys[start:min(start+MaxTransactItems, len(keys))]
		items := make([]types.TransactWriteItem, len(batch))
		for i, k := range batch {
			items[i] = types.TransactWriteItem{Update: &types.Update{
				TableName: aws.String(t.Name), Key: k,
				UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			}}
		}
		if err := t.Transact(ctx, items); err != nil {
			return err
		}
	}
	return nil
}

// CancellationReasons returns the per-item reasons of a cancelled transaction, or nil if
// err is not a cancellation. UNAVAILABLE (TransactRetry gave up on transient reasons; its
// cause is the last cancellation) is not one: callers must not read it as a failed
// condition.
func CancellationReasons(err error) ([]types.CancellationReason, bool) {
	var tce *types.TransactionCanceledException
	if domain.ErrorCode(err) != domain.CodeUnavailable && errors.As(err, &tce) {
		return tce.CancellationReasons, true
	}
	return nil, false
}

// ReasonCode returns the code of reason i, or "" if there is none.
func ReasonCode(reasons []types.CancellationReason, i int) string {
	if i < len(reasons) && reasons[i].Code != nil {
		return *reasons[i].Code
	}
	return ""
}

// Failed reports whether item i of a cancelled transaction failed its condition.
func Failed(reasons []types.CancellationReason, i int) bool {
	return ReasonCode(reasons, i) == "ConditionalCheckFailed"
}

// IsConditionFailed reports whether err is a single write's failed condition.
func IsConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// NewQuery returns the Query of cond on the table (index "") or an index, at most limit
// items (0: no limit), in ascending sort-key order if forward, reading only attrs (all
// attributes when there are none).
func (t *Table) NewQuery(index string, cond expression.KeyConditionBuilder, limit int, forward bool, attrs ...string) (*dynamodb.QueryInput, error) {
	b := expression.NewBuilder().WithKeyCondition(cond)
	if len(attrs) > 0 {
		names := make([]expression.NameBuilder, len(attrs))
		for i, a := range attrs {
			names[i] = expression.Name(a)
		}
		b = b.WithProjection(expression.NamesList(names[0], names[1:]...))
	}
	expr, err := b.Build()
	if err != nil {
		return nil, err
	}
	q := &dynamodb.QueryInput{
		TableName:                 aws.String(t.Name),
		KeyConditionExpression:    expr.KeyCondition(),
		ProjectionExpression:      expr.Projection(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ScanIndexForward:          aws.Bool(forward),
	}
	if index != "" {
		q.IndexName = aws.String(index)
	}
	if limit > 0 {
		q.Limit = aws.Int32(int32(limit))
	}
	return q, nil
}

// QueryEach runs q, following LastEvaluatedKey, and calls fn for each item until fn
// returns false or an error, or the items end. One Query per page of results.
func (t *Table) QueryEach(ctx context.Context, q *dynamodb.QueryInput, fn func(item map[string]types.AttributeValue) (bool, error)) error {
	for {
		out, err := t.Query(ctx, q)
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

// BatchGet reads keys (strongly consistent if consistent) in requests of at most 100 keys,
// retrying unprocessed keys, and calls fn for every item found.
func (t *Table) BatchGet(ctx context.Context, keys []map[string]types.AttributeValue, consistent bool, fn func(map[string]types.AttributeValue) error) error {
	for start := 0; start < len(keys); start += MaxBatchGetKeys {
		req := map[string]types.KeysAndAttributes{t.Name: {Keys: keys[start:min(start+MaxBatchGetKeys, len(keys))], ConsistentRead: aws.Bool(consistent)}}
		for attempt := 1; len(req) > 0; attempt++ {
			out, err := t.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return err
			}
			for _, item := range out.Responses[t.Name] {
				if err := fn(item); err != nil {
					return err
				}
			}
			req = out.UnprocessedKeys
			if len(req) > 0 {
				if err := Sleep(ctx, Backoff(attempt)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// OptimisticAttempts bounds how often one operation reads again and writes again when its
// conditional write found that what it read had changed.
const OptimisticAttempts = 8

// Get reads the item at key (strongly consistent if consistent) into a new T
// (attributevalue); nil when there is none.
func Get[T any](ctx context.Context, t *Table, key map[string]types.AttributeValue, consistent bool) (*T, error) {
	out, err := t.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(t.Name), Key: key, ConsistentRead: aws.Bool(consistent)})
	if err != nil || out.Item == nil {
		return nil, err
	}
	v := new(T)
	if err := attributevalue.UnmarshalMap(out.Item, v); err != nil {
		return nil, err
	}
	return v, nil
}
