package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.uber.org/goleak"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/awsfaithful"
	"github.com/pickem/api/internal/capacity"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/testclock"
	"github.com/pickem/api/server"
)

// The request deadline of TestUnderEveryFault. CI uses a short one; `make faults` runs the
// test with the Lambda function's (29 s) to measure what a client really sees.
var faultDeadline = flag.Duration("fault-deadline", 3*time.Second, "request deadline of TestUnderEveryFault")

// faultEnv is the API over the AWS-faithful engine, behind toxiproxy, with the production
// client settings (ddb.RetryOption).
type faultEnv struct {
	*env
	eng    *awsfaithful.Engine
	net    *awsfaithful.Network
	direct *dynamodb.Client // DynamoDB Local itself, for checking the table
	table  string
	ev     tEvent
}

func newFaultEnv(t *testing.T) *faultEnv {
	t.Helper()
	// A frozen engine clock: a throttled partition stays throttled until the test lifts it.
	engClock := testclock.New(t0)
	eng := awsfaithful.New(t, awsfaithful.Config{Now: engClock.Now, Capacity: capacity.Uniform(capacity.AWS)})
	netw := awsfaithful.NewNetwork(t, eng.Endpoint())
	db := dynamotest.Client(t, ddb.CostOption, ddb.RetryOption, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(netw.Endpoint())
	})
	t.Cleanup(func() { db.Options().HTTPClient.(*http.Client).CloseIdleConnections() })
	clock := testclock.New(t0)
	table := dynamotest.TableName()
	store := dynamo.New(db, table, dynamo.WithClock(clock.Now), dynamo.WithScoreShards(1))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := store.EnsureTable(ctx); err != nil {
		t.Fatalf("EnsureTable: %v", err)
	}
	secret := []byte("test-secret-0123456789abcdef0123456789")
	h, err := server.New(server.Config{Store: store, Verifier: auth.NewHS256(secret), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	directHTTP := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(directHTTP.CloseIdleConnections)
	direct := dynamotest.Client(t, func(o *dynamodb.Options) { o.HTTPClient = directHTTP })
	f := &faultEnv{env: &env{h: h, clock: clock, secret: secret}, eng: eng, net: netw, direct: direct, table: table}
	f.ev = f.createEvent(t, "Fault Night", t0.Add(48*time.Hour), threeMatchCard()...)
	f.submit(t, f.token(t, "player-p", "P"), f.ev, 0, 1, 0)
	return f
}

// outcome is what one request got: its error code ("" for success) and how long it took.
type outcome struct {
	code    string
	elapsed time.Duration
}

func (o outcome) String() string {
	code := o.code
	if code == "" {
		code = "ok"
	}
	return fmt.Sprintf("%s in %v", code, o.elapsed.Round(time.Millisecond))
}

// timed runs one operation with the fault deadline on its context.
func (f *faultEnv) timed(token, query string, vars map[string]any) (outcome, gqlResponse, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	ctx, cancel := context.WithTimeout(context.Background(), *faultDeadline)
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/graphql", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	start := time.Now()
	f.h.ServeHTTP(w, r)
	o := outcome{elapsed: time.Since(start)}
	var resp gqlResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		return o, resp, fmt.Errorf("status %d, body is not JSON: %v: %s", w.Code, err, w.Body.String())
	}
	for _, e := range resp.Errors {
		if o.code == "" || e.Code() != "UNAVAILABLE" {
			o.code = e.Code()
		}
	}
	return o, resp, nil
}

const faultQueryOp = `query($id: ID!) { event(id: $id) { id matches { id } } prediction(eventId: $id) { picks { matchId team } } }`

// predictions reads the table (consistently, from DynamoDB Local) and returns the picks of
// every prediction of the event by user, and the sum of its prediction counters.
func (f *faultEnv) predictions(t *testing.T) (map[string]string, int) {
	t.Helper()
	picks := map[string]string{}
	counted := 0
	var start map[string]types.AttributeValue
	for {
		out, err := f.direct.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(f.table), ConsistentRead: aws.Bool(true), ExclusiveStartKey: start})
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		for _, it := range out.Items {
			s := func(n string) string {
				if v, ok := it[n].(*types.AttributeValueMemberS); ok {
					return v.Value
				}
				return ""
			}
			switch s("type") {
			case "prediction":
				if s("eventId") == f.ev.ID {
					b, _ := json.Marshal(it["picks"])
					picks[s("userId")] = string(b)
				}
			case "lock":
				if s("eventId") == f.ev.ID {
					n, _ := it["predictions"].(*types.AttributeValueMemberN)
					c, _ := strconv.Atoi(n.Value)
					counted += c
				}
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return picks, counted
		}
		start = out.LastEvaluatedKey
	}
}

// faultCase is one fault: inject turns it on (returning the function that turns it off);
// the rest of the scenario is the same for all.
type faultCase struct {
	name   string
	inject func(t *testing.T, f *faultEnv) (clear func())
}

// starve gives the partitions match accepts no capacity at all (of the kinds asked).
func starve(match func(capacity.Partition) bool, reads, writes bool) func(capacity.Partition) capacity.Rate {
	return func(p capacity.Partition) capacity.Rate {
		if !match(p) {
			return capacity.AWS
		}
		r := capacity.AWS
		if reads {
			r.Read = 1e-9
		}
		if writes {
			r.Write = 1e-9
		}
		return r
	}
}

var faultCases = []faultCase{
	{"ThrottledTablePartition", func(t *testing.T, f *faultEnv) func() {
		f.eng.SetCapacity(starve(func(p capacity.Partition) bool { return p.Index == "" && strings.HasPrefix(p.Key, table.UserKeyPrefix) }, true, true))
		return func() { f.eng.SetCapacity(capacity.Uniform(capacity.AWS)) }
	}},
	{"ThrottledIndexPartition", func(t *testing.T, f *faultEnv) func() {
		f.eng.SetCapacity(starve(func(p capacity.Partition) bool { return p.Index != "" && p.Key == table.EventIndexPartition(f.ev.ID) }, true, true))
		return func() { f.eng.SetCapacity(capacity.Uniform(capacity.AWS)) }
	}},
	{"ThrottledIndexWrites", func(t *testing.T, f *faultEnv) func() {
		f.eng.SetCapacity(starve(func(p capacity.Partition) bool { return p.Index != "" && p.Key == table.EventIndexPartition(f.ev.ID) }, false, true))
		return func() { f.eng.SetCapacity(capacity.Uniform(capacity.AWS)) }
	}},
	{"TransactionConflict", func(t *testing.T, f *faultEnv) func() {
		return f.holdEvent(t, 0)
	}},
	{"TransactionConflictCleared", func(t *testing.T, f *faultEnv) func() {
		return f.holdEvent(t, 300*time.Millisecond)
	}},
	{"LatencyOverAttemptTimeout", func(t *testing.T, f *faultEnv) func() {
		if err := f.net.Latency(ddb.AttemptTimeout + 500*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		return f.net.Clear
	}},
	{"LostWriteAnswer", func(t *testing.T, f *faultEnv) func() {
		// The transaction is applied; its answer comes back after the attempt timeout.
		return f.eng.DelayAnswers(func(op string) bool { return op == "TransactWriteItems" }, ddb.AttemptTimeout+500*time.Millisecond)
	}},
	{"ConnectionReset", func(t *testing.T, f *faultEnv) func() {
		if err := f.net.ResetPeer(); err != nil {
			t.Fatal(err)
		}
		return f.net.Clear
	}},
	{"BlackHole", func(t *testing.T, f *faultEnv) func() {
		if err := f.net.BlackHole(); err != nil {
			t.Fatal(err)
		}
		return f.net.Clear
	}},
}

// holdEvent puts another player's submit in flight, holding the lock copy of the event
// that player-q's submit checks (a player whose submits share it), until the returned
// function is called, or for release if that is not 0.
func (f *faultEnv) holdEvent(t *testing.T, release time.Duration) func() {
	t.Helper()
	pk, sk := table.LockCopyKey(f.ev.ID, "player-q", 1)
	holder := "player-r"
	for i := 0; ; i++ {
		if p, _ := table.LockCopyKey(f.ev.ID, holder, 1); p == pk {
			break
		}
		holder = fmt.Sprintf("player-r%d", i)
	}
	gate := f.eng.PauseTransactions(awsfaithful.Touches(pk, sk))
	tok := f.token(t, holder, "R")
	done := make(chan outcome, 1)
	go func() {
		// Not timed: this submit waits for the gate.
		body, _ := json.Marshal(map[string]any{"query": submitOp, "variables": map[string]any{"e": f.ev.ID, "picks": picks(f.ev, 1, 1, 1)}})
		r := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "/graphql", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, r)
		var resp gqlResponse
		_ = json.Unmarshal(w.Body.Bytes(), &resp)
		o := outcome{}
		if len(resp.Errors) > 0 {
			o.code = resp.Errors[0].Code()
		}
		done <- o
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := gate.Paused(ctx); err != nil {
		t.Fatalf("the holding submit never got in flight: %v", err)
	}
	if release > 0 {
		time.AfterFunc(release, gate.Release)
	}
	return func() {
		gate.Release()
		if o := <-done; o.code != "" {
			t.Errorf("the submit that held the event item failed: %s", o.code)
		}
	}
}

// TestUnderEveryFault runs, for each fault of the AWS-faithful engine and of the network,
// a query (card + own prediction) and a mutation (a new player's submit) through the real
// handler with a request deadline, and checks that each answers in time, successfully or
// with UNAVAILABLE (never INTERNAL, never a hang); that the table holds no partial write
// (every prediction counted, none counted twice); that once the fault is gone the client's
// retry succeeds and nothing acknowledged is lost; and, at the end, that no goroutine is
// left behind. Each case logs a FAULT line: `make faults` collects them into bench/README.
func TestUnderEveryFault(t *testing.T) {
	baseline := goleak.IgnoreCurrent()
	var mu sync.Mutex
	var lines []string
	t.Run("cases", func(t *testing.T) {
		for _, fc := range faultCases {
			t.Run(fc.name, func(t *testing.T) {
				t.Parallel()
				line := runFault(t, fc)
				mu.Lock()
				lines = append(lines, line)
				mu.Unlock()
			})
		}
	})
	sort.Strings(lines)
	for _, l := range lines {
		t.Log(l)
	}
	if t.Failed() {
		return
	}
	if err := goleak.Find(baseline); err != nil {
		t.Errorf("goroutines left behind after the faults: %v", err)
	}
}

func runFault(t *testing.T, fc faultCase) string {
	f := newFaultEnv(t)
	p, q := f.token(t, "player-p", "P"), f.token(t, "player-q", "Q")
	qPicks := picks(f.ev, 1, 0, 1)
	before, _ := f.predictions(t)

	clear := fc.inject(t, f)
	query, qresp, err := f.timed(p, faultQueryOp, map[string]any{"id": f.ev.ID})
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	mutation, _, err := f.timed(q, submitOp, map[string]any{"e": f.ev.ID, "picks": qPicks})
	if err != nil {
		t.Fatalf("mutation: %v", err)
	}
	clear()

	limit := *faultDeadline + 2*time.Second // a bound on hangs, not a performance figure
	for _, o := range []struct {
		what string
		o    outcome
	}{{"query", query}, {"mutation", mutation}} {
		if o.o.code != "" && o.o.code != "UNAVAILABLE" {
			t.Errorf("%s answered %s, want success or UNAVAILABLE", o.what, o.o.code)
		}
		if o.o.elapsed > limit {
			t.Errorf("%s answered after %v, past the %v deadline", o.what, o.o.elapsed, *faultDeadline)
		}
	}
	if query.code == "" && len(qresp.Errors) > 0 {
		t.Errorf("query errors: %+v", qresp.Errors)
	}

	// No partial write: every prediction of the event is counted exactly once, q's is
	// there only if whole, nothing else moved.
	after, counted := f.predictions(t)
	partial := 0
	if counted != len(after) {
		t.Errorf("%d predictions but the counters say %d: a partial write", len(after), counted)
		partial++
	}
	for user, pk := range before {
		if after[user] != pk {
			t.Errorf("%s's prediction changed under the fault", user)
			partial++
		}
	}
	if mutation.code == "" && after["player-q"] == "" {
		t.Errorf("the submit was acknowledged but its prediction is not in the table")
	}

	// The client retries once the fault is gone; nothing acknowledged or retried is lost.
	retried := ""
	if mutation.code != "" {
		applied := "no"
		if after["player-q"] != "" {
			applied = "yes" // the answer was lost, not the write: why a client must be able to repeat
		}
		retried = ", write applied anyway: " + applied
		o, _, err := f.timed(q, submitOp, map[string]any{"e": f.ev.ID, "picks": qPicks})
		if err != nil || o.code != "" {
			t.Fatalf("retry after the fault: %v %v", o, err)
		}
		retried += fmt.Sprintf(", client retry ok in %v", o.elapsed.Round(time.Millisecond))
	}
	final, counted := f.predictions(t)
	lost := 0
	for _, user := range []string{"player-p", "player-q"} {
		if final[user] == "" {
			lost++
		}
	}
	if lost > 0 || counted != len(final) {
		t.Errorf("writes lost: %d; %d predictions, counted %d", lost, len(final), counted)
	}
	return fmt.Sprintf("FAULT | %s | query: %v | mutation: %v%s | partial writes: %d | writes lost: %d | deadline %v",
		fc.name, query, mutation, retried, partial, lost, *faultDeadline)
}
