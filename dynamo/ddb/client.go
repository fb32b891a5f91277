package ddb

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/dynamo/table"
)

// NewClient returns a DynamoDB client with the cost-counting option and the fault
// handling of RetryOption (per-attempt timeout, retry budget) installed, configured
// from the environment only: the region from AWS_REGION (or AWS_DEFAULT_REGION), the
// credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, which is
// how Lambda hands a function its role's credentials. The SDK's default chain (shared
// config files, SSO, STS, the instance metadata service) is deliberately not linked: the
// Lambda function needs none of it, and leaving it out makes the bootstrap smaller and its
// init shorter (bench/README.md).
//
// With an endpoint (DynamoDB Local) the region defaults to us-east-1,
// the credentials to static local ones, and response checksums are not validated. Without
// one, a missing region or missing credentials is an error.
func NewClient(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	_ = ctx // the environment is read synchronously; ctx is kept for callers' symmetry
	cfg := aws.Config{Region: os.Getenv("AWS_REGION")}
	if cfg.Region == "" {
		cfg.Region = os.Getenv("AWS_DEFAULT_REGION")
	}
	key, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	switch {
	case key != "" && secret != "":
		cfg.Credentials = credentials.NewStaticCredentialsProvider(key, secret, os.Getenv("AWS_SESSION_TOKEN"))
	case endpoint != "":
		cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
	default:
		return nil, errors.New("dynamo: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (Lambda sets them)")
	}
	if cfg.Region == "" {
		if endpoint == "" {
			return nil, errors.New("dynamo: no AWS region: set AWS_REGION (Lambda sets it)")
		}
		cfg.Region = "us-east-1"
	}
	return dynamodb.NewFromConfig(cfg, CostOption, RetryOption, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			o.DisableValidateResponseChecksum = true
		}
	}), nil
}

// The client's fault handling (RetryOption). A request's DynamoDB calls must answer within
// the request's deadline (API Gateway ends every request at 30 s; the function's timeout
// is 29 s), and most of a request's time is a handful of sequential calls, so one call
// may take at most AttemptTimeout × MaxAttempts plus backoffs (4 × 2 s + at most 0.7 s):
// a read screen or a mutation that meets a dead connection still answers, UNAVAILABLE,
// well before the deadline, and the request's context stops whatever remains at the
// deadline itself.
const (
	// AttemptTimeout bounds one HTTP attempt, connection and response body included.
	// DynamoDB answers single-item calls in milliseconds and a 100-item transaction or a
	// 1 MB page well under a second; an attempt still waiting after 2 s is on a dead or
	// black-holed connection, and a new attempt on a new connection is the cure.
	AttemptTimeout = 2 * time.Second
	// MaxAttempts is attempts per call, the first included (the SDK's default is 3;
	// DynamoDB's own newer default is 4): throttling and TransactionConflict usually
	// clear within a few hundred milliseconds.
	MaxAttempts = 4
	// BaseBackoff and MaxBackoff shape the wait before retry n: uniformly random in
	// [0, min(MaxBackoff, BaseBackoff × 2^n)] ("full jitter"), so 100, 200, 400 ms at
	// most for the three retries. The SDK's default (1 s × 2^n, up to 20 s) would let
	// one call outlive the request.
	BaseBackoff = 50 * time.Millisecond
	MaxBackoff  = time.Second
	// RetryTokens is the retry budget of one client (one Lambda execution environment,
	// one local server): a retry costs RetryCost tokens, a retry after a timeout
	// RetryTimeoutCost, a call that succeeds at once gives one back. When DynamoDB keeps
	// failing, the budget runs out after about 100 retries and calls then fail at their
	// first error instead of multiplying the load on a table that is already struggling.
	RetryTokens      = 500
	RetryCost        = 5
	RetryTimeoutCost = 10
)

// RetryOption is a dynamodb client option that sets the fault handling above explicitly:
// the standard retryer with MaxAttempts, full-jitter backoff, a token-bucket retry budget,
// TransactionConflictException retried like throttling (a plain write to an item that a
// transaction in flight holds did nothing: trying again is safe), and the SDK's transport
// in an HTTP client whose timeout is AttemptTimeout. What still fails after the retries
// reaches the store as an error the store reports as UNAVAILABLE (see NewTable).
func RetryOption(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = MaxAttempts
		so.MaxBackoff = MaxBackoff
		so.Backoff = retry.BackoffDelayerFunc(fullJitter)
		so.RateLimiter = ratelimit.NewTokenRateLimit(RetryTokens)
		so.RetryCost = RetryCost
		so.RetryTimeoutCost = RetryTimeoutCost
		so.NoRetryIncrement = 1
		so.Retryables = append(so.Retryables, retry.RetryableErrorCode{Codes: retryableCodes})
	})
	// The SDK's tuned transport, in a plain *http.Client (whose idle connections a
	// caller can close) with the attempt timeout. A ranked page reads up to MaxShards
	// partitions at once: keep that many connections (and the page's card) open between
	// requests, rather than the SDK's 10 per host, so that a page does not open new ones.
	sdk := awshttp.NewBuildableClient().
		WithTransportOptions(func(t *http.Transport) { t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, 2*table.MaxShards) }).
		GetTransport()
	o.HTTPClient = &http.Client{Timeout: AttemptTimeout, Transport: sdk}
}

// retryableCodes are the error codes retried besides the SDK's defaults.
var retryableCodes = map[string]struct{}{"TransactionConflictException": {}}

// fullJitter is the wait before retry n (n ≥ 1).
func fullJitter(n int, _ error) (time.Duration, error) {
	d := min(MaxBackoff, BaseBackoff<<min(n, 10))
	return time.Duration(rand.Int64N(int64(d) + 1)), nil
}
