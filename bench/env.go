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
	"github.com/pickem/api/server"
)

// env is one engine with the API served over it: the store, the real handler on an
// httptest server on 127.0.0.1, and an HTTP client with keep-alive.
type env struct {
	eng   *engine
	table string
	// db is the client of the store, the floors and the loader: ddb.NewClient's.
	db     *dynamodb.Client
	store  *dynamo.Store
	srv    *httptest.Server
	http   *http.Client
	secret []byte
	now    time.Time

	mu     sync.Mutex
	tokens map[string]string
}

func newEnv(ctx context.Context, eng *engine, now time.Time) (*env, error) {
	api, err := ddb.NewClient(ctx, eng.endpoint)
	if err != nil {
		return nil, err
	}
	e := &env{eng: eng, table: eng.table, db: api, now: now, tokens: map[string]string{}}
	clock := func() time.Time { return now }
	e.store = dynamo.New(api, e.table, dynamo.WithClock(clock))
	e.secret = make([]byte, 32)
	_, _ = rand.Read(e.secret)
	h, err := server.New(server.Config{
		Store: e.store, Verifier: auth.NewHS256(e.secret), CostExtension: true, Now: clock,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	})
	if err != nil {
		return nil, err
	}
	e.srv = httptest.NewServer(h)
	e.http = &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}}
	return e, nil
}

func (e *env) close() {
	e.srv.Close()
	e.http.CloseIdleConnections()
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

// post sends one GraphQL request the way the frontend does and returns the time from
// sending it to having read the whole answer, and the answer.
func (e *env) post(ctx context.Context, body []byte, token string) (time.Duration, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.srv.URL+"/graphql", bytes.NewReader(body))
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
