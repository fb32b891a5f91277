package record

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/dynamo/ddb"
)

// Error classes the model raises, named by the code the SDK or the store sees.
const (
	// ErrThrottle is a throttled single-item call or read: ProvisionedThroughputExceeded
	// (retried by the SDK when its retryer says so).
	ErrThrottle = "ProvisionedThroughputExceededException"
	// ErrTxThrottle is a transaction cancelled because a partition it writes is out of
	// capacity (reason ThrottlingError): never retried by the SDK.
	ErrTxThrottle = "ThrottlingError"
	// ErrTxConflict is a transaction cancelled because another in-flight transaction
	// holds one of its items (reason TransactionConflict): never retried by the SDK.
	ErrTxConflict = "TransactionConflict"
	// ErrConflict is a single-item write to an item an in-flight transaction holds.
	ErrConflict = "TransactionConflictException"
)

// SDKRetry is what ddb.NewClient's retryer does, read from the client itself.
type SDKRetry struct {
	MaxAttempts int `json:"maxAttempts"`
	// Retryable says which of the model's error classes the SDK retries.
	Retryable map[string]bool `json:"retryable"`
	// BackoffCapMs[i] is the longest wait before attempt i+2 (the retryer's jitter is
	// uniform below it; sampled from the retryer).
	BackoffCapMs []float64 `json:"backoffCapMs"`
}

// sdkRetry reads the retry behaviour of dynamo's client.
func sdkRetry(ctx context.Context, db *dynamodb.Client) (SDKRetry, error) {
	r := db.Options().Retryer
	if r == nil {
		return SDKRetry{}, fmt.Errorf("scale: dynamo's client has no retryer")
	}
	out := SDKRetry{MaxAttempts: r.MaxAttempts(), Retryable: map[string]bool{}}
	samples := map[string]error{
		ErrThrottle:   &types.ProvisionedThroughputExceededException{Message: aws.String("model")},
		ErrTxThrottle: txCancelled(ErrTxThrottle, 1),
		ErrTxConflict: txCancelled(ErrTxConflict, 1),
		ErrConflict:   &types.TransactionConflictException{Message: aws.String("model")},
	}
	for class, err := range samples {
		out.Retryable[class] = r.IsErrorRetryable(err)
	}
	for attempt := 1; attempt < max(out.MaxAttempts, 1); attempt++ {
		cap := 0.0
		for i := 0; i < 400; i++ {
			d, err := r.RetryDelay(attempt, samples[ErrThrottle])
			if err != nil {
				return out, fmt.Errorf("scale: SDK retry delay: %w", err)
			}
			cap = math.Max(cap, float64(d)/float64(time.Millisecond))
		}
		// 400 uniform samples reach within 1% of the cap; round up to 10 ms.
		out.BackoffCapMs = append(out.BackoffCapMs, math.Ceil(cap/10)*10)
	}
	return out, nil
}

func txCancelled(reason string, items int) error {
	reasons := make([]types.CancellationReason, max(items, 1))
	for i := range reasons {
		reasons[i].Code = aws.String("None")
	}
	reasons[0].Code = aws.String(reason)
	return &types.TransactionCanceledException{Message: aws.String("Transaction cancelled (" + reason + ")"), CancellationReasons: reasons}
}

// StoreRetry is how the store handles a call that keeps failing with one error class
// after the SDK's own retries: measured by a probe that fails every such call of one
// request and counts what the store does.
type StoreRetry struct {
	Load  string `json:"load"`
	Op    string `json:"op"`
	Error string `json:"error"`
	// Attempts is how many times the store issued the call, the first included, before
	// the request gave up (0: the request never reached such a call).
	Attempts int `json:"attempts"`
	// Unbounded is set when the store was still retrying after ProbeCap attempts.
	Unbounded bool `json:"unbounded,omitempty"`
	// GapsMs are the waits between attempts (the store's backoff, plus any re-reads).
	GapsMs []float64 `json:"gapsMs,omitempty"`
	// Outcome is the error code the caller got.
	Outcome string `json:"outcome,omitempty"`
}

// ProbeCap bounds a probe: after so many failed attempts the fault lets the call
// through.
const ProbeCap = 60

// faultAPI fails every call of one operation with one error class.
type faultAPI struct {
	ddb.API
	mu       sync.Mutex
	op, err  string
	attempts []time.Time
}

func (f *faultAPI) set(op, err string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.op, f.err, f.attempts = op, err, nil
}

func (f *faultAPI) result() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.attempts...)
}

// fail returns the injected error for a call of op, or nil to let it through.
func (f *faultAPI) fail(op string, items int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if op != f.op || len(f.attempts) >= ProbeCap {
		return nil
	}
	f.attempts = append(f.attempts, time.Now())
	if f.err == ErrThrottle {
		return &types.ProvisionedThroughputExceededException{Message: aws.String("injected by the scale probe")}
	}
	return txCancelled(f.err, items)
}

func (f *faultAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := f.fail("GetItem", 1); err != nil {
		return nil, err
	}
	return f.API.GetItem(ctx, in, o...)
}

func (f *faultAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := f.fail("PutItem", 1); err != nil {
		return nil, err
	}
	return f.API.PutItem(ctx, in, o...)
}

func (f *faultAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := f.fail("UpdateItem", 1); err != nil {
		return nil, err
	}
	return f.API.UpdateItem(ctx, in, o...)
}

func (f *faultAPI) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := f.fail("Query", 1); err != nil {
		return nil, err
	}
	return f.API.Query(ctx, in, o...)
}

func (f *faultAPI) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if err := f.fail("BatchGetItem", 1); err != nil {
		return nil, err
	}
	return f.API.BatchGetItem(ctx, in, o...)
}

func (f *faultAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := f.fail("TransactWriteItems", len(in.TransactItems)); err != nil {
		return nil, err
	}
	return f.API.TransactWriteItems(ctx, in, o...)
}

// errorClasses are the faults probed for an operation.
func errorClasses(op string) []string {
	if op == "TransactWriteItems" {
		return []string{ErrTxThrottle, ErrTxConflict}
	}
	return []string{ErrThrottle}
}

// probe measures the store's own retries: for every load and every operation its
// requests make, one request of that load on a small table of its own, with every call of
// that operation failing.
func probe(ctx context.Context, opts RecordOptions, rec *Recording) ([]StoreRetry, error) {
	fault := &faultAPI{}
	popts := opts
	popts.Players = 3
	h, err := newHarness(ctx, popts, func(api ddb.API) ddb.API { fault.API = api; return fault })
	if err != nil {
		return nil, err
	}
	ev, err := h.createEvent(ctx, "scale-probe", probeStart)
	if err != nil {
		return nil, err
	}
	var out []StoreRetry
	next := 100
	run := func(load, op, class string, send func() (answer, error)) error {
		fault.set(op, class)
		a, err := send()
		at := fault.result()
		fault.set("", "")
		if err != nil {
			return err
		}
		sr := StoreRetry{Load: load, Op: op, Error: class, Attempts: len(at), Unbounded: len(at) >= ProbeCap, Outcome: a.code}
		for i := 1; i < len(at); i++ {
			sr.GapsMs = append(sr.GapsMs, math.Round(float64(at[i].Sub(at[i-1]).Microseconds())/100)/10)
		}
		out = append(out, sr)
		return nil
	}
	perPlayer := func(load string, vars map[string]any) error {
		for _, op := range rec.ops(load) {
			for _, class := range errorClasses(op) {
				next++
				p := next
				err := run(load, op, class, func() (answer, error) {
					return h.send(ctx, Screens[load], h.token(playerID(p), playerName(p), false), vars, nil)
				})
				if err != nil {
					return err
				}
			}
		}
		return nil
	}

	// Scoring is probed on events of its own, one per fault (three players each), so that
	// a probe that ends up scoring its event leaves the next one something to score.
	type scoreProbe struct {
		op, class string
		ev        event
	}
	var scoring []scoreProbe
	for _, op := range rec.ops(LoadScore) {
		for _, class := range errorClasses(op) {
			e, err := h.createEvent(ctx, fmt.Sprintf("scale-probe-%d", len(scoring)+1), probeStart)
			if err != nil {
				return nil, err
			}
			scoring = append(scoring, scoreProbe{op, class, e})
		}
	}

	h.clock.Set(probeStart.Add(-30 * time.Minute))
	if err := perPlayer(LoadSubmit, map[string]any{"eventId": ev.id, "picks": ev.picks(1)}); err != nil {
		return nil, err
	}
	for _, e := range append([]event{ev}, func() (es []event) {
		for _, sp := range scoring {
			es = append(es, sp.ev)
		}
		return es
	}()...) {
		for p := 1; p <= 3; p++ {
			if _, err := h.untraced(ctx, Screens[LoadSubmit], h.token(playerID(p), playerName(p), false),
				map[string]any{"eventId": e.id, "picks": e.picks(p)}); err != nil {
				return nil, err
			}
		}
	}
	if err := perPlayer(LoadCard, map[string]any{"id": ev.id}); err != nil {
		return nil, err
	}
	h.clock.Set(probeStart.Add(3 * time.Hour))
	if err := h.results(ctx, ev); err != nil {
		return nil, err
	}
	// One scoreEvent call per fault, without a budget, so that it gets as far as the
	// writes that close the event.
	for _, sp := range scoring {
		if err := h.results(ctx, sp.ev); err != nil {
			return nil, err
		}
		err := run(LoadScore, sp.op, sp.class, func() (answer, error) {
			return h.sendTo(ctx, h.full, Screen{Method: "POST", Document: h.scoreDoc(ctx)}, h.token("scale-admin", "Scale Admin", true),
				map[string]any{"e": sp.ev.id}, nil)
		})
		if err != nil {
			return nil, err
		}
	}
	if _, _, err := h.score(ctx, []http.Handler{h.handler}, ev, nil); err != nil {
		return nil, err
	}
	if err := perPlayer(LoadStandings, map[string]any{"season": season, "first": popts.PageSize}); err != nil {
		return nil, err
	}
	if err := perPlayer(LoadLeaderboard, map[string]any{"id": ev.id, "first": popts.PageSize}); err != nil {
		return nil, err
	}
	return out, nil
}
