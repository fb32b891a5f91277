package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/testclock"
	"github.com/pickem/api/server"
)

// The API tests drive server.New's handler in-process against DynamoDB Local, one fresh
// table per test function. Top-level tests run in parallel; subtests of one test share its
// table and clock and run in order.
func TestMain(m *testing.M) { dynamotest.Main(m) }

// t0 is where every test clock starts: all events are placed relative to it.
var t0 = time.Date(2030, time.June, 15, 12, 0, 0, 0, time.UTC)

// testClock is a mutable clock shared by the store (lock checks, timestamps) and the
// testClock is the shared settable test clock.
type testClock = testclock.Clock

// env is one API over its own table.
type env struct {
	h      http.Handler
	clock  *testClock
	secret []byte
	calls  *atomic.Int64 // every DynamoDB call the store's client made
}

type envOption func(*server.Config)

// newEnv creates a table and returns the API over it, with the cost extension on, CORS for
// http://localhost:5173 and HS256 tokens.
func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	return newEnvShards(t, 1, opts...)
}

// newEnvShards is newEnv whose store creates events and seasons of shards shards (newEnv:
// one, the production default).
func newEnvShards(t *testing.T, shards int, opts ...envOption) *env {
	t.Helper()
	calls := &atomic.Int64{}
	db := dynamotest.Client(t, ddb.CostOption, countCalls(calls))
	clock := testclock.New(t0)
	store := dynamo.New(db, dynamotest.TableName(), dynamo.WithClock(clock.Now), dynamo.WithScoreShards(shards))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := store.EnsureTable(ctx); err != nil {
		t.Fatalf("EnsureTable: %v", err)
	}
	secret := []byte("test-secret-0123456789abcdef0123456789")
	cfg := server.Config{
		Store: store, Verifier: auth.NewHS256(secret), CostExtension: true,
		AllowedOrigins: []string{"http://localhost:5173"}, Now: clock.Now,
	}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := server.New(cfg)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	return &env{h: h, clock: clock, secret: secret, calls: calls}
}

// countCalls is a client option that counts every DynamoDB operation the client sends.
func countCalls(n *atomic.Int64) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc("TestCountCalls",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					n.Add(1)
					return next.HandleInitialize(ctx, in)
				}), middleware.After)
		})
	}
}

// token mints a bearer token for a player (groups may include auth.AdminGroup).
func (e *env) token(t *testing.T, id, name string, groups ...string) string {
	t.Helper()
	tok, err := auth.MintHS256(e.secret, auth.Identity{ID: id, Name: name, Groups: groups}, time.Hour)
	if err != nil {
		t.Fatalf("MintHS256: %v", err)
	}
	return tok
}

func (e *env) admin(t *testing.T) string { return e.token(t, "admin-1", "Admin", auth.AdminGroup) }

// gqlErr is one entry of a GraphQL response's errors.
type gqlErr struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

func (e gqlErr) Code() string {
	c, _ := e.Extensions["code"].(string)
	return c
}

// gqlResponse is a whole GraphQL response.
type gqlResponse struct {
	Data       json.RawMessage            `json:"data"`
	Errors     []gqlErr                   `json:"errors"`
	Extensions map[string]json.RawMessage `json:"extensions"`
}

// do sends one HTTP request to the handler and returns the recorded response.
func (e *env) do(t *testing.T, method, path string, body io.Reader, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequestWithContext(t.Context(), method, path, body)
	for k, vs := range header {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// post sends a GraphQL POST body (any JSON value) with an optional bearer token and
// returns the status and the decoded response.
func (e *env) post(t *testing.T, token string, body any, header http.Header) (int, gqlResponse) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatalf("marshal request: %v", err)
	}
	if header == nil {
		header = http.Header{}
	}
	header.Set("Content-Type", "application/json")
	if token != "" {
		header.Set("Authorization", "Bearer "+token)
	}
	w := e.do(t, http.MethodPost, "/graphql", bytes.NewReader(b), header)
	var resp gqlResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		t.Fatalf("POST /graphql: status %d, body is not JSON: %v\n%s", w.Code, err, w.Body.String())
	}
	return w.Code, resp
}

// request runs one operation and returns the whole response.
func (e *env) request(t *testing.T, token, query string, vars map[string]any) gqlResponse {
	t.Helper()
	body := map[string]any{"query": query}
	if vars != nil {
		body["variables"] = vars
	}
	status, resp := e.post(t, token, body, nil)
	if status != http.StatusOK && len(resp.Errors) == 0 {
		t.Fatalf("POST /graphql: status %d without errors", status)
	}
	return resp
}

// gql runs one operation and decodes its data into T.
func gql[T any](t *testing.T, e *env, token, query string, vars map[string]any) (T, []gqlErr) {
	t.Helper()
	resp := e.request(t, token, query, vars)
	var data T
	if len(resp.Data) > 0 && string(resp.Data) != "null" {
		if err := json.Unmarshal(resp.Data, &data); err != nil {
			t.Fatalf("decode data: %v\n%s", err, resp.Data)
		}
	}
	return data, resp.Errors
}

// mustGQL is gql that fails the test on any error.
func mustGQL[T any](t *testing.T, e *env, token, query string, vars map[string]any) T {
	t.Helper()
	data, errs := gql[T](t, e, token, query, vars)
	noErrors(t, errs)
	return data
}

func noErrors(t *testing.T, errs []gqlErr) {
	t.Helper()
	if len(errs) > 0 {
		b, _ := json.Marshal(errs)
		t.Fatalf("unexpected errors: %s", b)
	}
}

// wantCode fails unless errs holds exactly one error and it has code.
func wantCode(t *testing.T, errs []gqlErr, code string) {
	t.Helper()
	b, _ := json.Marshal(errs)
	if len(errs) != 1 {
		t.Fatalf("want one error with code %s, got %d: %s", code, len(errs), b)
	}
	if got := errs[0].Code(); got != code {
		t.Fatalf("extensions.code = %q, want %q: %s", got, code, b)
	}
}

// codeOf runs an operation expected to fail and returns the code of its one error.
func codeOf(t *testing.T, e *env, token, query string, vars map[string]any) string {
	t.Helper()
	_, errs := gql[json.RawMessage](t, e, token, query, vars)
	if len(errs) != 1 {
		b, _ := json.Marshal(errs)
		t.Fatalf("want exactly one error, got %d: %s", len(errs), b)
	}
	return errs[0].Code()
}

// Response shapes. encoding/json matches field names case-insensitively.
type (
	tPageInfo struct {
		HasNextPage bool
		EndCursor   *string
	}
	tConn[T any] struct {
		Edges []struct {
			Cursor string
			Node   T
		}
		PageInfo tPageInfo
	}
	tTeam struct {
		Name     *string
		Members  []string
		Champion bool
	}
	tResult struct {
		Outcome string
		Winner  *int
	}
	tMatch struct {
		ID            string
		Position      int
		Name          string
		Points        int
		Preshow       bool
		Championships []string
		Teams         []tTeam
		Result        *tResult
	}
	tEvent struct {
		ID          string
		Name        string
		StartsAt    string
		Season      int
		State       string
		Locked      bool
		Matches     []tMatch
		Leaderboard *tConn[tPrediction]
	}
	tPick struct {
		MatchID string
		Team    int
		Correct *bool
	}
	tRef struct {
		ID       string
		Name     string
		StartsAt string
	}
	tPrediction struct {
		EventID   string
		Event     tRef
		User      tRef
		Picks     []tPick
		Points    *int
		Correct   *int
		Rank      *int
		UpdatedAt string
	}
	tStanding struct {
		Rank         *int
		Season       int
		User         tRef
		Points       int
		Correct      int
		EventsPlayed int
	}
	tUser struct {
		ID          string
		Name        string
		Standings   []tStanding
		Predictions *tConn[tPrediction]
	}
	tReport struct {
		EventID           string
		DryRun            bool
		PredictionsScored int
		StandingsChanged  int
		Transactions      int
	}
)

func nodes[T any](c *tConn[T]) []T {
	if c == nil {
		return nil
	}
	out := make([]T, len(c.Edges))
	for i, e := range c.Edges {
		out[i] = e.Node
	}
	return out
}

// Fragments shared by the operations below.
const (
	matchFields = `fragment M on Match { id position name points preshow championships
  teams { name members champion } result { outcome winner } }`
	predictionFields = `fragment P on Prediction { eventId event { id name startsAt } user { id name }
  picks { matchId team correct } points correct rank updatedAt }`
	eventFields = `fragment E on Event { id name startsAt season state locked matches { ...M } }
` + matchFields
	standingFields = `fragment S on Standing { rank season user { id name } points correct eventsPlayed }`
)

// Operations used by many tests.
const (
	createEventOp = `mutation($input: EventInput!) { createEvent(input: $input) { ...E } }
` + eventFields
	submitOp = `mutation($e: ID!, $picks: [PickInput!]!) { submitPrediction(eventId: $e, picks: $picks) { ...P } }
` + predictionFields
	setResultOp = `mutation($e: ID!, $m: ID!, $r: MatchResultInput) { setResult(eventId: $e, matchId: $m, result: $r) { ...M } }
` + matchFields
	scoreOp = `mutation($e: ID!, $dry: Boolean) { scoreEvent(eventId: $e, dryRun: $dry) { eventId dryRun predictionsScored standingsChanged transactions } }`
	eventOp = `query($id: ID!, $first: Int, $after: String) { event(id: $id) { ...E
  leaderboard(first: $first, after: $after) { edges { cursor node { ...P } } pageInfo { hasNextPage endCursor } } } }
` + eventFields + predictionFields
	updateEventOp = `mutation($id: ID!, $input: EventUpdateInput!) { updateEvent(id: $id, input: $input) { ...E } }
` + eventFields
)

// match builds a MatchInput with one single-member team per name.
func match(name string, points int, wrestlers ...string) map[string]any {
	teams := make([]any, len(wrestlers))
	for i, w := range wrestlers {
		teams[i] = map[string]any{"members": []string{w}}
	}
	return map[string]any{"name": name, "points": points, "teams": teams}
}

// createEvent creates an event as admin and returns it.
func (e *env) createEvent(t *testing.T, name string, startsAt time.Time, matches ...map[string]any) tEvent {
	t.Helper()
	in := map[string]any{"name": name, "startsAt": startsAt.Format(time.RFC3339)}
	if matches != nil {
		in["matches"] = matches
	}
	return mustGQL[struct{ CreateEvent tEvent }](t, e, e.admin(t), createEventOp, map[string]any{"input": in}).CreateEvent
}

// threeMatchCard is a card worth 10, 5 and 5 points, two teams each.
func threeMatchCard() []map[string]any {
	return []map[string]any{
		match("Main Event", 10, "Hangman Page", "Jon Moxley"),
		match("Women's Title", 5, "Toni Storm", "Mariah May"),
		match("Opener", 5, "Will Ospreay", "Kyle Fletcher"),
	}
}

// picks builds a PickInput list: teams[i] is the pick for ev.Matches[i]; -1 skips it.
func picks(ev tEvent, teams ...int) []map[string]any {
	var out []map[string]any
	for i, team := range teams {
		if team >= 0 {
			out = append(out, map[string]any{"matchId": ev.Matches[i].ID, "team": team})
		}
	}
	return out
}

func (e *env) submit(t *testing.T, token string, ev tEvent, teams ...int) tPrediction {
	t.Helper()
	return mustGQL[struct{ SubmitPrediction tPrediction }](t, e, token, submitOp,
		map[string]any{"e": ev.ID, "picks": picks(ev, teams...)}).SubmitPrediction
}

// setWinners enters a WIN for every match (winners[i] for ev.Matches[i]) as admin.
func (e *env) setWinners(t *testing.T, ev tEvent, winners ...int) {
	t.Helper()
	for i, w := range winners {
		mustGQL[json.RawMessage](t, e, e.admin(t), setResultOp,
			map[string]any{"e": ev.ID, "m": ev.Matches[i].ID, "r": map[string]any{"outcome": "WIN", "winner": w}})
	}
}

func (e *env) score(t *testing.T, eventID string, dryRun bool) tReport {
	t.Helper()
	return mustGQL[struct{ ScoreEvent tReport }](t, e, e.admin(t), scoreOp, map[string]any{"e": eventID, "dry": dryRun}).ScoreEvent
}

func (e *env) event(t *testing.T, token, id string) *tEvent {
	t.Helper()
	return mustGQL[struct{ Event *tEvent }](t, e, token, eventOp, map[string]any{"id": id}).Event
}

// scoredFixture is an event scored with four players on 20, 15, 15 and 5 points (ranks
// 1, 2, 2, 4; the tie sorted by user id), plus the tokens of those players.
type scoredFixture struct {
	ev      tEvent
	players []string // user ids, in leaderboard order
	tokens  map[string]string
}

// newScoredFixture creates the scored event starting 2 h after the clock, moves the clock
// 1 h past its start and scores it.
func newScoredFixture(t *testing.T, e *env, name string) scoredFixture {
	t.Helper()
	start := e.clock.Now().Add(2 * time.Hour)
	ev := e.createEvent(t, name, start, threeMatchCard()...)
	f := scoredFixture{ev: ev, players: []string{"p-ace", "p-bea", "p-cal", "p-dee"}, tokens: map[string]string{}}
	names := []string{"Ace", "Bea", "Cal", "Dee"}
	// Winners will be 0, 1, 0.
	choices := [][]int{{0, 1, 0}, {0, 1, 1}, {0, 0, 0}, {1, 1, 1}} // 20, 15, 15, 5
	for i, id := range f.players {
		f.tokens[id] = e.token(t, id, names[i])
		e.submit(t, f.tokens[id], ev, choices[i]...)
	}
	e.clock.Set(start.Add(time.Hour))
	e.setWinners(t, ev, 0, 1, 0)
	e.score(t, ev.ID, false)
	return f
}

func standingNodes(d standingsData) []tStanding { return nodes(&d.Standings) }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
