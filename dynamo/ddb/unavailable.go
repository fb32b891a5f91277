package ddb

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/domain"
)

// unavailableMessage is what a client is told when DynamoDB could not do it now.
const unavailableMessage = "the database is busy or did not answer in time; try again"

// unavailable turns err into UNAVAILABLE if it is a failure that trying again later can
// cure (see retryable); other errors, and nil, are returned as they are. The SDK error
// stays wrapped, so errors.As still finds it.
func unavailable(err error) error {
	if err == nil || !retryable(err) {
		return err
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err // already translated
	}
	return &domain.Error{Code: domain.CodeUnavailable, Message: unavailableMessage, Err: err}
}

// sdkRetryables is how the client's retryer (RetryOption) decides that an attempt may be
// tried again: throttling (ProvisionedThroughputExceeded, ThrottlingException,
// RequestLimitExceeded…), TransactionConflictException, HTTP 5xx, connection errors
// (refused, reset), timeouts.
var sdkRetryables = retry.IsErrorRetryables(append(append([]retry.IsErrorRetryable(nil), retry.DefaultRetryables...),
	retry.RetryableErrorCode{Codes: retryableCodes}))

// retryable reports whether err is a DynamoDB failure that trying again later can cure
// and that the client's own retries did not: the retryer's retryable errors (what is left
// once its attempts or its retry budget ran out), a transaction cancelled only for
// TransactionConflict or throttling, and the request's context ending (deadline reached,
// or the caller gone) while waiting for DynamoDB. An error already translated to
// UNAVAILABLE is retryable; any other domain error is not.
func retryable(err error) bool {
	if err == nil {
		return false
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return de.Code == domain.CodeUnavailable
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	if reasons, cancelled := CancellationReasons(err); cancelled {
		return onlyTransient(reasons)
	}
	return sdkRetryables.IsErrorRetryable(err).Bool()
}

// available is the store's client: every call's error goes through unavailable, so that
// each of the store's operations reports DynamoDB being busy or unreachable as
// UNAVAILABLE, once, here. A transaction cancelled for a reason that retrying cures is
// passed on as it is: TransactRetry retries it (and translates it when it gives up).
type available struct{ api API }

// translated calls f and translates its error.
func translated[I, O any](f func(context.Context, I, ...func(*dynamodb.Options)) (O, error), ctx context.Context, in I, o []func(*dynamodb.Options)) (O, error) {
	out, err := f(ctx, in, o...)
	return out, unavailable(err)
}

func (a available) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return translated(a.api.GetItem, ctx, in, o)
}

func (a available) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return translated(a.api.PutItem, ctx, in, o)
}

func (a available) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return translated(a.api.UpdateItem, ctx, in, o)
}

func (a available) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return translated(a.api.Query, ctx, in, o)
}

func (a available) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return translated(a.api.BatchGetItem, ctx, in, o)
}

func (a available) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := a.api.TransactWriteItems(ctx, in, o...)
	if _, cancelled := CancellationReasons(err); cancelled {
		return out, err // TransactRetry's to retry or translate
	}
	return out, unavailable(err)
}

func (a available) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return translated(a.api.CreateTable, ctx, in, o)
}

func (a available) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return translated(a.api.DescribeTable, ctx, in, o)
}

func (a available) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return translated(a.api.UpdateContinuousBackups, ctx, in, o)
}
