// Package awsfaithful is a DynamoDB endpoint for tests and benchmarks that behaves like
// AWS where DynamoDB Local does not. It is an HTTP proxy speaking DynamoDB's JSON
// protocol (X-Amz-Target + JSON body) in front of DynamoDB Local, so the SDK's own
// retryer, timeouts and error deserialisation run exactly as they would against AWS.
// What it adds:
//
//   - Stale index reads. Query and Scan with an IndexName are answered from a shadow
//     copy of the table (same key schema and indexes, in DynamoDB Local) that the
//     table's stream feeds change by change, each change reaching it after a lag, with
//     no ordering between items (one item's changes stay in order). Tests control it
//     exactly: HoldIndex keeps the changes that match a predicate out of the index until
//     released, FreezeIndex holds them all, SetIndexLag sets a seeded random lag, and
//     SyncIndex lets the index catch up. Limit, pagination, key conditions and ordering
//     stay DynamoDB Local's.
//   - Per-partition throttling (Config.Capacity): token buckets per partition key value
//     on the table and on every index (AWS: 3,000 RCU / 1,000 WCU per second), units
//     from item sizes (internal/capacity); a short index partition throttles the table
//     write that feeds it. Errors are AWS's: ProvisionedThroughputExceededException
//     with a KeyRangeThroughputExceeded reason for plain calls, TransactionCanceledException
//     with reason ThrottlingError for transactions, UnprocessedKeys/UnprocessedItems for
//     batches. With metering on, a write's ConsumedCapacity (when asked for) is what AWS
//     would charge — DynamoDB Local undercounts transactions and index writes. Used
//     returns the units consumed per partition.
//   - Transaction conflicts: an in-flight TransactWriteItems holds its items; a
//     transaction touching a held item is cancelled (reason TransactionConflict on that
//     item), and a plain write to one gets TransactionConflictException. Overlap is made
//     reproducible by Config.TransactionHold and by PauseTransactions.
//
// Network faults (latency, resets, black holes) come from toxiproxy: see [Network].
// DelayAnswers delays the answers of chosen operations after they were carried out (an
// applied write whose answer is lost).
//
// Tables are taken over the first time a request names them: the engine enables a
// stream (NEW_AND_OLD_IMAGES) on the table in DynamoDB Local and, if it has global
// secondary indexes, creates the shadow "<table>.shadow" and copies the table into it.
// A CreateTable through the engine gets the stream at creation. Writes made to DynamoDB
// Local directly (test fixtures) reach the shadow through the stream too; they are not
// throttled or charged.
//
// Not modelled: stale reads of the base table (eventually consistent GetItem/Query
// without an index — rare on AWS), local secondary indexes (served as DynamoDB Local
// does), burst and adaptive capacity, ClientRequestToken semantics beyond DynamoDB
// Local's.
package awsfaithful

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/pickem/api/internal/capacity"
)

// Config configures an engine. The zero value (besides Upstream) is DynamoDB Local's
// behaviour with an index that is current at every read.
type Config struct {
	// Upstream is DynamoDB Local's endpoint, e.g. "http://127.0.0.1:8000". Required.
	Upstream string
	// Now is the engine's clock for index lag and capacity buckets (default time.Now).
	// A test clock makes both deterministic.
	Now func() time.Time
	// Seed seeds the random index lag (0 = a fixed default seed).
	Seed uint64
	// IndexLag is the range each change's index propagation lag is drawn from, uniformly
	// (zero: every change reaches the index before the next index read).
	IndexLag Lag
	// Capacity, if not nil, gives each partition its throughput limit and turns
	// throttling on; capacity.Uniform(capacity.AWS) is AWS's. Nil: nothing is metered.
	Capacity func(capacity.Partition) capacity.Rate
	// ThrottlingException makes plain calls over a partition's limit fail with
	// ThrottlingException instead of ProvisionedThroughputExceededException.
	ThrottlingException bool
	// TransactionHold keeps every TransactWriteItems in flight, holding its items, this
	// long before it is applied (so that overlapping transactions conflict).
	TransactionHold time.Duration
}

// Lag is a range of index propagation lags.
type Lag struct{ Min, Max time.Duration }

// Engine is a running AWS-faithful endpoint.
type Engine struct {
	cfg      Config
	upstream string
	http     *http.Client
	now      func() time.Time
	meter    *capacity.Meter // nil: no throttling
	srv      *http.Server
	ln       net.Listener

	mu      sync.Mutex // guards the fields below
	tables  map[string]*table
	holds   []*Hold
	gates   []*TxGate
	hooks   []*txHook
	delays  []*answerDelay
	seq     uint64
	rng     *rand.Rand
	lag     Lag
	txHold  time.Duration
	locks   map[string]*holder // item key → the request holding it
	stopped bool

	faults faultLog // requests refused, for Faults and WaitFaults
}

// FaultCounts counts what the engine refused: requests (or transactions, or batch items)
// throttled, and transactions or writes refused for a TransactionConflict.
type FaultCounts struct{ Throttled, Conflicts int64 }

// Faults returns what the engine has refused so far.
func (e *Engine) Faults() FaultCounts {
	counts, _ := e.faults.read()
	return counts
}

// WaitFaults waits until what the engine has refused satisfies ok (e.g. a first
// TransactionConflict: func(f FaultCounts) bool { return f.Conflicts > 0 }), or until ctx
// ends. It lets a test hold a situation until a fault has happened, without guessing how
// long that takes.
func (e *Engine) WaitFaults(ctx context.Context, ok func(FaultCounts) bool) error {
	for {
		counts, changed := e.faults.read()
		if ok(counts) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// faultLog counts what the engine refused.
type faultLog struct {
	mu      sync.Mutex
	counts  FaultCounts
	changed chan struct{} // closed (and replaced) when counts change
}

// add adds d to the counts.
func (l *faultLog) add(d FaultCounts) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts.Throttled += d.Throttled
	l.counts.Conflicts += d.Conflicts
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

// read returns the counts and a channel closed at their next change.
func (l *faultLog) read() (FaultCounts, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return l.counts, l.changed
}

// Start starts an engine in front of cfg.Upstream on a loopback port.
func Start(cfg Config) (*Engine, error) {
	if cfg.Upstream == "" {
		return nil, errors.New("awsfaithful: Config.Upstream is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	seed := cfg.Seed
	if seed == 0 {
		seed = 0x5eed
	}
	e := &Engine{
		cfg:      cfg,
		upstream: strings.TrimRight(cfg.Upstream, "/"),
		http:     &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}},
		now:      cfg.Now,
		tables:   map[string]*table{},
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		lag:      cfg.IndexLag,
		txHold:   cfg.TransactionHold,
		locks:    map[string]*holder{},
	}
	if cfg.Capacity != nil {
		e.meter = capacity.NewMeter(cfg.Capacity, cfg.Now)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("awsfaithful: listen: %w", err)
	}
	e.ln = ln
	e.srv = &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// Endpoint is the engine's base URL: point the SDK's BaseEndpoint at it.
func (e *Engine) Endpoint() string { return "http://" + e.ln.Addr().String() }

// Close stops the engine: it releases every hold and paused transaction, stops serving
// and closes its connections to DynamoDB Local. It does not delete tables.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.stopped = true
	e.holds = nil
	gates := append([]*TxGate(nil), e.gates...)
	e.mu.Unlock()
	for _, g := range gates {
		g.Release()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	if err != nil {
		_ = e.srv.Close()
	}
	e.http.CloseIdleConnections()
	return err
}

// Used returns the capacity units consumed through the engine so far, by partition (nil
// without Config.Capacity).
func (e *Engine) Used() map[capacity.Partition]capacity.Usage {
	if e.meter == nil {
		return nil
	}
	return e.meter.Used()
}

// SetCapacity replaces Config.Capacity's limits (every partition starts with a full
// bucket). The engine must have been started with a Config.Capacity: a nil one turns
// metering off for good.
func (e *Engine) SetCapacity(limit func(capacity.Partition) capacity.Rate) {
	if e.meter != nil {
		e.meter.SetLimit(limit)
	}
}

type answerDelay struct {
	match func(op string) bool
	d     time.Duration
}

// DelayAnswers holds back, by d, the answers to the operations match accepts (e.g.
// func(op string) bool { return op == "TransactWriteItems" }), after they were carried
// out: the write happens and the client hears of it late, or — past its timeout — never
// (a lost answer, not a lost write). The returned function stops delaying.
func (e *Engine) DelayAnswers(match func(op string) bool, d time.Duration) (stop func()) {
	ad := &answerDelay{match: match, d: d}
	e.mu.Lock()
	e.delays = append(e.delays, ad)
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.delays = slices.DeleteFunc(e.delays, func(x *answerDelay) bool { return x == ad })
	}
}

// answerDelay is the longest delay that applies to op's answers.
func (e *Engine) answerDelay(op string) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	var d time.Duration
	for _, ad := range e.delays {
		if ad.match(op) {
			d = max(d, ad.d)
		}
	}
	return d
}

// SetTransactionHold changes Config.TransactionHold for transactions that start later.
func (e *Engine) SetTransactionHold(d time.Duration) {
	e.mu.Lock()
	e.txHold = d
	e.mu.Unlock()
}

// ServeHTTP answers one DynamoDB request.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	target := r.Header.Get("X-Amz-Target")
	op, isDynamo := strings.CutPrefix(target, targetPrefix)
	if !isDynamo || r.Method != http.MethodPost {
		e.pass(w, r, target, body)
		return
	}
	x := &exchange{e: e, w: w, r: r, op: op, body: body}
	var aerr *awsError
	switch op {
	case "CreateTable":
		err = x.createTable()
	case "DeleteTable":
		err = x.deleteTable()
	case "Query", "Scan":
		err = x.read(true)
	case "GetItem":
		err = x.read(false)
	case "BatchGetItem":
		err = x.batchGet()
	case "PutItem", "UpdateItem", "DeleteItem":
		err = x.write()
	case "TransactWriteItems":
		err = x.transact()
	case "BatchWriteItem":
		err = x.batchWrite()
	default:
		e.pass(w, r, target, body)
		return
	}
	if d := e.answerDelay(op); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done(): // the client gave up: it never hears the answer
			t.Stop()
			return
		}
	}
	switch {
	case err == nil:
		// Written only now, after the handler released what it held: a client that
		// sends its next request as soon as it has the answer must not find the items
		// of this one still held.
		writeJSON(w, x.status, x.out)
	case errors.As(err, &aerr):
		aerr.write(w)
	case r.Context().Err() != nil:
		// The client gave up; nobody reads the answer.
	default:
		(&awsError{Status: 500, Type: "InternalServerError", Body: map[string]any{"message": "awsfaithful: " + err.Error()}}).write(w)
	}
}

// pass relays a request DynamoDB Local answers as it is.
func (e *Engine) pass(w http.ResponseWriter, r *http.Request, target string, body []byte) {
	x := &exchange{e: e, w: w, r: r, body: body}
	status, resp, err := x.upstream(target, body)
	if err != nil {
		(&awsError{Status: 500, Type: "InternalServerError", Body: map[string]any{"message": "awsfaithful: " + err.Error()}}).write(w)
		return
	}
	writeJSON(w, status, resp)
}

// exchange is one request being answered.
type exchange struct {
	e    *Engine
	w    http.ResponseWriter
	r    *http.Request
	op   string
	body []byte

	status int    // the answer, set by reply
	out    []byte // and written once the handler has returned
}

func (x *exchange) ctx() context.Context { return x.r.Context() }

// upstream sends body to DynamoDB Local with the client's headers.
func (x *exchange) upstream(target string, body []byte) (int, []byte, error) {
	return x.e.roundTrip(x.ctx(), target, body, x.r.Header)
}

// forward sends body as this exchange's operation and returns the answer.
func (x *exchange) forward(body []byte) (int, []byte, error) {
	return x.upstream(targetPrefix+x.op, body)
}

// reply sets the answer; ServeHTTP writes it once the handler has returned.
func (x *exchange) reply(status int, body []byte) { x.status, x.out = status, body }

// relay forwards the request unchanged and replies with the answer.
func (x *exchange) relay() error {
	status, resp, err := x.forward(x.body)
	if err != nil {
		return err
	}
	x.reply(status, resp)
	return nil
}

// createTable adds a NEW_AND_OLD_IMAGES stream to the table unless it asks for one.
func (x *exchange) createTable() error {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(x.body, &in); err != nil {
		return x.relay()
	}
	if _, ok := in["StreamSpecification"]; !ok {
		in["StreamSpecification"] = json.RawMessage(`{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}`)
	}
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	status, resp, err := x.forward(body)
	if err != nil {
		return err
	}
	x.reply(status, resp)
	return nil
}

// deleteTable deletes the table and forgets it (and its shadow).
func (x *exchange) deleteTable() error {
	var in struct{ TableName string }
	_ = json.Unmarshal(x.body, &in)
	status, resp, err := x.forward(x.body)
	if err != nil {
		return err
	}
	if status == http.StatusOK {
		x.e.forget(x.ctx(), in.TableName)
	}
	x.reply(status, resp)
	return nil
}

func newRequestID() string { return uuid.NewString() }

// unmarshalBody decodes the request body into v, answering a ValidationException-like
// error if it is not JSON.
func (x *exchange) unmarshalBody(v any) error {
	if err := json.Unmarshal(x.body, v); err != nil {
		return &awsError{Status: 400, Type: "SerializationException", Body: map[string]any{"Message": err.Error()}}
	}
	return nil
}

// replaceJSON re-encodes m after a change.
func replaceJSON(m map[string]json.RawMessage) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m)
	return bytes.TrimRight(buf.Bytes(), "\n")
}
