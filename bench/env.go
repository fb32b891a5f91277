package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/internal/awsfaithful"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/server"
)

// env is the engine with the API served over it twice: through path direct, which
// reaches DynamoDB Local as it is, and through path slow (latency mode), which reaches it
// through a proxy that delays every request and every answer. The loader and the admin's
// scoring use the direct path.
type env struct {
	table  string
	now    time.Time
	secret []byte
	http   *http.Client // to the API servers, with keep-alive
	netw   *awsfaithful.Network
	direct *path
	slow   *path

	mu     sync.Mutex
	tokens map[string]string
}

// path is one way to the engine: an SDK client (ddb.NewClient's), which the floors use,
// and the store and the real handler over it on an httptest server on 127.0.0.1.
type path struct {
	latency bool
	db      *dynamodb.Client
	store   *dynamo.Store
	srv     *httptest.Server
}

func newEnv(ctx context.Context, eng *engine, now time.Time, latency time.Duration) (e *env, err error) {
	e = &env{table: eng.table, now: now, tokens: map[string]string{}}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	// Text, so that a server configured by its environment (PICKEM_DEV_SECRET) can share it.
	e.secret = []byte(rand.Text())
	e.http = &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}}
	if e.direct, err = e.newPath(ctx, eng.endpoint); err != nil {
		return e, err
	}
	if e.netw, err = awsfaithful.StartNetwork(eng.endpoint); err != nil {
		return e, err
	}
	if err := e.netw.RequestLatency(latency); err != nil {
		return e, err
	}
	if err := e.netw.Latency(latency); err != nil {
		return e, err
	}
	if e.slow, err = e.newPath(ctx, e.netw.Endpoint()); err != nil {
		return e, err
	}
	e.slow.latency = true
	return e, nil
}

func (e *env) newPath(ctx context.Context, endpoint string) (*path, error) {
	db, err := ddb.NewClient(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	// The production client, but for its 2 s attempt timeout: DynamoDB Local on a loaded
	// machine may take longer to answer a transaction of 100 items, which on AWS is a fault.
	db = dynamodb.New(db.Options(), dynamotest.PatientAttempts)
	clock := func() time.Time { return e.now }
	store := dynamo.New(db, e.table, dynamo.WithClock(clock))
	h, err := server.New(server.Config{
		Store: store, Verifier: auth.NewHS256(e.secret), CostExtension: true, Now: clock,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	})
	if err != nil {
		return nil, err
	}
	return &path{db: db, store: store, srv: httptest.NewServer(h)}, nil
}

func (e *env) close() {
	for _, p := range []*path{e.direct, e.slow} {
		if p != nil {
			p.srv.Close()
		}
	}
	if e.netw != nil {
		e.netw.Close()
	}
	if e.http != nil {
		e.http.CloseIdleConnections()
	}
}

// creator is a store of the direct path that creates events and seasons of shards shards.
func (e *env) creator(shards int) *dynamo.Store {
	return dynamo.New(e.direct.db, e.table, dynamo.WithClock(func() time.Time { return e.now }), dynamo.WithScoreShards(shards))
}

// token returns a bearer token for id (cached).
func (e *env) token(id auth.Identity) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t, ok := e.tokens[id.ID]; ok {
		return t
	}
	t, err := auth.MintHS256(e.secret, id, 6*time.Hour)
	if err != nil {
		panic(err)
	}
	e.tokens[id.ID] = t
	return t
}

func (e *env) playerToken(p int) string {
	return e.token(auth.Identity{ID: playerID(p), Name: playerName(p)})
}

func (e *env) adminToken() string {
	return e.token(auth.Identity{ID: "bench-admin", Name: "Bench Admin", Groups: []string{auth.AdminGroup}})
}

// gqlResponse is a GraphQL answer with the cost extension.
type gqlResponse struct {
	Data   json.RawMessage   `json:"data"`
	Errors []json.RawMessage `json:"errors"`
	Ext    struct {
		DynamoDB *ddb.CostSnapshot `json:"dynamodb"`
	} `json:"extensions"`
}

// post sends one GraphQL request to p's server the way the frontend does and returns the
// time from sending it to having read the whole answer, and the answer.
func (e *env) post(ctx context.Context, p *path, body []byte, token string) (time.Duration, []byte, error) {
	return e.postTo(ctx, p.srv.URL, body, token)
}

// postTo is post to the API served at base (scheme and host).
func (e *env) postTo(ctx context.Context, base string, body []byte, token string) (time.Duration, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/graphql", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	resp, err := e.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	d := time.Since(start)
	resp.Body.Close()
	if err != nil {
		return 0, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return d, b, fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, b)
	}
	return d, b, nil
}

// decode parses an answer and fails on GraphQL errors.
func decode(b []byte) (*gqlResponse, error) {
	var r gqlResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("bad answer %.300s: %w", b, err)
	}
	if len(r.Errors) > 0 {
		return &r, fmt.Errorf("GraphQL errors: %.500s", b)
	}
	return &r, nil
}
