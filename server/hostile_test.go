package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/hostile"
	"github.com/pickem/api/server"
)

// postJSON sends body as a GraphQL POST and returns the recorder.
func (e *env) postJSON(t *testing.T, token string, body any) *httptest.ResponseRecorder {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return e.do(t, http.MethodPost, "/graphql", bytes.NewReader(b), h)
}

// limitOf returns extensions.limit of the first error.
func limitOf(r gqlResponse) string {
	if len(r.Errors) == 0 {
		return ""
	}
	l, _ := r.Errors[0].Extensions["limit"].(string)
	return l
}

// TestHostileRow1Aliases: 1,499 aliases of event(id) in one anonymous request made 1,499
// DynamoDB Queries; now the document is refused before anything runs, and below the
// token limit the DynamoDB budget refuses what it would cost.
func TestHostileRow1Aliases(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	before := e.calls.Load()
	r := refused(t, e, before, e.postJSON(t, "", hostile.Aliases(1499)), http.StatusUnprocessableEntity, server.CodeLimitExceeded)
	if limitOf(r) != "tokens" {
		t.Fatalf("limit %q", limitOf(r))
	}
	// Below the alias limit, the budget: standings (planned as one Query per shard of a
	// season of the most shards; a season no other test reads, so no cache serves it) and
	// aliases of event(id).
	budget := func(events int) hostile.Request {
		var b strings.Builder
		b.WriteString("query($e: ID!) { standings(season: 2041) { edges { cursor } }")
		for i := range events {
			fmt.Fprintf(&b, " a%d: event(id: $e) { id }", i)
		}
		b.WriteString(" }")
		return hostile.Request{Query: b.String(), Variables: map[string]any{"e": hostile.EventID}}
	}
	events := server.DefaultMaxDynamoDBCalls - (1 + table.MaxShards)
	t.Run("OverTheBudget", func(t *testing.T) {
		before := e.calls.Load()
		r := refused(t, e, before, e.postJSON(t, "", budget(events+1)), http.StatusUnprocessableEntity, server.CodeLimitExceeded)
		if limitOf(r) != "dynamodbCalls" || r.Errors[0].Extensions["requested"] != float64(server.DefaultMaxDynamoDBCalls+1) {
			t.Fatalf("errors %+v", r.Errors)
		}
	})
	t.Run("WithinTheBudget", func(t *testing.T) {
		before := e.calls.Load()
		req := budget(events)
		resp := e.request(t, "", req.Query, req.Variables)
		noErrors(t, resp.Errors)
		// Planned for a season of the most shards; this one has no event, and is read with
		// one Query.
		if n := e.calls.Load() - before; n != int64(events+1) {
			t.Fatalf("%d calls, want %d", n, events+1)
		}
	})
}

// TestHostileDocumentShapes: every hostile shape (rows 2 and 10 of the issue, and the
// others found since) is refused before validation and execution, with a code, and
// without a DynamoDB call.
func TestHostileDocumentShapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.Introspection = true })
	want := map[string]string{
		"Row1Aliases1499":         "tokens",
		"Row2SameField6000":       "tokens",
		"Row2RepeatedRoot7000":    "tokens",
		"Row10FragmentDoubling24": "fields",
		"Directives3000":          "tokens",
		"IntrospectionAliases300": "tokens",
		"IntrospectionDepth40":    "depth",
		"Operations2000":          "tokens",
		"FragmentFanout":          "tokens",
		"IntrospectionAliases28":  "introspection",
	}
	for _, shape := range hostile.Shapes() {
		if strings.HasPrefix(shape.Name, "WithinLimits") {
			continue
		}
		t.Run(shape.Name, func(t *testing.T) {
			if want[shape.Name] == "" {
				t.Fatalf("no expectation for shape %s", shape.Name)
			}
			before := e.calls.Load()
			r := refused(t, e, before, e.postJSON(t, "", shape.Build(1)), http.StatusUnprocessableEntity, server.CodeLimitExceeded)
			if got := limitOf(r); got != want[shape.Name] {
				t.Fatalf("limit %q, want %q", got, want[shape.Name])
			}
		})
	}
	t.Run("SmallerShapesHitTheirOwnLimits", func(t *testing.T) {
		for name, c := range map[string]struct {
			req   hostile.Request
			limit string
		}{
			"SameField":        {hostile.SameField(400, 1), "repeats"},
			"RepeatedRoot":     {hostile.RepeatedRoot(40, 1), "repeats"},
			"FragmentDoubling": {hostile.FragmentDoubling(12, 1), "fields"},
			"Directives":       {hostile.Directives(40, 1), "directives"},
			"Aliases":          {hostile.Request{Query: aliasesOfTypename(server.DefaultMaxAliases + 1)}, "aliases"},
		} {
			t.Run(name, func(t *testing.T) {
				before := e.calls.Load()
				r := refused(t, e, before, e.postJSON(t, "", c.req), http.StatusUnprocessableEntity, server.CodeLimitExceeded)
				if got := limitOf(r); got != c.limit {
					t.Fatalf("limit %q, want %q", got, c.limit)
				}
			})
		}
	})
	t.Run("FragmentCycle", func(t *testing.T) {
		before := e.calls.Load()
		q := "{ me { ...A } } fragment A on User { id ...B } fragment B on User { name ...A }"
		refused(t, e, before, e.postJSON(t, "", hostile.Request{Query: q}), http.StatusUnprocessableEntity, "GRAPHQL_VALIDATION_FAILED")
	})
	t.Run("WithinLimitsRun", func(t *testing.T) {
		for _, shape := range hostile.Shapes() {
			if !strings.HasPrefix(shape.Name, "WithinLimits") {
				continue
			}
			resp := e.request(t, "", shape.Build(1).Query, shape.Build(1).Variables)
			noErrors(t, resp.Errors)
		}
	})
}

// TestHostileRow8Introspection: introspection is refused where it is off (the Lambda
// default), before anything runs; __typename is not introspection.
func TestHostileRow8Introspection(t *testing.T) {
	t.Parallel()
	off := newEnv(t)
	for name, q := range map[string]string{
		"Schema":         "{ __schema { types { name } } }",
		"Type":           `{ __type(name: "Query") { fields { name } } }`,
		"InFragment":     "query { ...F } fragment F on Query { __schema { queryType { name } } }",
		"Introspection":  hostile.IntrospectionQuery,
		"BesideAQuery":   "{ events { edges { cursor } } __schema { types { name } } }",
		"InInlineOnRoot": "{ ... on Query { __type(name: \"Event\") { name } } }",
	} {
		t.Run("Off"+name, func(t *testing.T) {
			before := off.calls.Load()
			refused(t, off, before, off.postJSON(t, "", hostile.Request{Query: q}), http.StatusUnprocessableEntity, "GRAPHQL_VALIDATION_FAILED")
		})
	}
	t.Run("OffTypename", func(t *testing.T) {
		d := mustGQL[struct{ Typename string }](t, off, "", "{ typename: __typename }", nil)
		if d.Typename != "Query" {
			t.Fatalf("%+v", d)
		}
	})
	on := newEnv(t, func(c *server.Config) { c.Introspection = true })
	t.Run("OnIntrospectionQuery", func(t *testing.T) {
		resp := on.request(t, "", hostile.IntrospectionQuery, nil)
		noErrors(t, resp.Errors)
		if !bytes.Contains(resp.Data, []byte(`"submitPrediction"`)) {
			t.Fatalf("data %.200s", resp.Data)
		}
	})
	t.Run("OnTwice", func(t *testing.T) {
		r := refused(t, on, on.calls.Load(), on.postJSON(t, "", hostile.Request{Query: "{ a: __schema { queryType { name } } b: __schema { queryType { name } } }"}),
			http.StatusUnprocessableEntity, server.CodeLimitExceeded)
		if limitOf(r) != "introspection" {
			t.Fatalf("limit %q", limitOf(r))
		}
	})
}

// TestDeferRefused: gqlgen runs @defer fragments, but the transport writes one response,
// so the client got `hasNext: true`, null in non-null fields and never the rest. A
// document that spreads a fragment with @defer is refused before anything runs.
func TestDeferRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for name, q := range map[string]string{
		"Inline":     `query($e: ID!) { event(id: $e) { id ... @defer { leaderboard { edges { cursor } } } } }`,
		"Spread":     `query($e: ID!) { event(id: $e) { id ...L @defer(label: "l") } } fragment L on Event { leaderboard { edges { cursor } } }`,
		"IfFalse":    `query($e: ID!) { event(id: $e) { id ... @defer(if: false) { name } } }`,
		"OnRoot":     `query($e: ID!) { ... @defer { event(id: $e) { id } } }`,
		"InFragment": `query($e: ID!) { ...Q } fragment Q on Query { event(id: $e) { ... @defer { id } } }`,
	} {
		t.Run(name, func(t *testing.T) {
			before := e.calls.Load()
			refused(t, e, before, e.postJSON(t, "", hostile.Request{Query: q, Variables: map[string]any{"e": hostile.EventID}}),
				http.StatusUnprocessableEntity, "GRAPHQL_VALIDATION_FAILED")
		})
	}
}

// TestHostileRow11Int32: Int literals and variables beyond 32 bits are refused before any
// resolver, the complexity function or DynamoDB sees them.
func TestHostileRow11Int32(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const huge = "4611686018427387904"
	player := e.token(t, "p-int", "Int")
	for name, c := range map[string]struct {
		query string
		vars  string
	}{
		"Literal":                  {`{ events(first: ` + huge + `) { edges { cursor } } }`, ""},
		"LiteralJustOver":          {`{ events(first: 2147483648) { edges { cursor } } }`, ""},
		"NegativeLiteral":          {`{ events(first: -2147483649) { edges { cursor } } }`, ""},
		"Variable":                 {`query($n: Int) { events(first: $n) { edges { cursor } } }`, `{"n": ` + huge + `}`},
		"NestedLeaderboard":        {`query($n: Int) { event(id: "2030-01-01-x") { leaderboard(first: $n) { edges { cursor } } } }`, `{"n": ` + huge + `}`},
		"NestedLiteral":            {`{ event(id: "2030-01-01-x") { leaderboard(first: ` + huge + `) { edges { cursor } } } }`, ""},
		"SeasonVariable":           {`query($s: Int!) { standings(season: $s) { edges { cursor } } }`, `{"s": -` + huge + `}`},
		"InputObjectVariable":      {`mutation($p: [PickInput!]!) { submitPrediction(eventId: "2030-01-01-x", picks: $p) { eventId } }`, `{"p": [{"matchId": "00000000-0000-4000-8000-000000000000", "team": ` + huge + `}]}`},
		"InputObjectLiteral":       {`mutation { submitPrediction(eventId: "2030-01-01-x", picks: [{matchId: "00000000-0000-4000-8000-000000000000", team: ` + huge + `}]) { eventId } }`, ""},
		"VariableDefaultLiteral":   {`query($n: Int = ` + huge + `) { events(first: $n) { edges { cursor } } }`, ""},
		"SingleValueCoercedToList": {`mutation($p: [PickInput!]!) { submitPrediction(eventId: "2030-01-01-x", picks: $p) { eventId } }`, `{"p": {"matchId": "00000000-0000-4000-8000-000000000000", "team": 2147483648}}`},
		// Numbers gqlgen's own coercion refused as GRAPHQL_VALIDATION_FAILED, quoting
		// "value 0": beyond 64 bits, out of float range, with a fraction.
		"VariableOver64Bits":     {`query($n: Int) { events(first: $n) { edges { cursor } } }`, `{"n": 100000000000000000000000000000}`},
		"VariableOutOfRange":     {`query($n: Int) { events(first: $n) { edges { cursor } } }`, `{"n": 1e309}`},
		"VariableFraction":       {`query($n: Int) { events(first: $n) { edges { cursor } } }`, `{"n": 1.5}`},
		"VariableFloatSpelling":  {`query($n: Int) { events(first: $n) { edges { cursor } } }`, `{"n": 3e9}`},
		"InputObjectOver64Bits":  {`mutation($p: [PickInput!]!) { submitPrediction(eventId: "2030-01-01-x", picks: $p) { eventId } }`, `{"p": [{"matchId": "00000000-0000-4000-8000-000000000000", "team": 1e309}]}`},
		"NamedOperationVariable": {`query A { events { edges { cursor } } } query B($n: Int) { events(first: $n) { edges { cursor } } }`, `{"n": 1.5}, "operationName": "B"`},
	} {
		t.Run(name, func(t *testing.T) {
			body := `{"query": ` + string(mustJSON(t, c.query))
			if c.vars != "" {
				body += `, "variables": ` + c.vars
			}
			body += "}"
			for range 2 { // the second time, the document comes from the query cache
				before := e.calls.Load()
				w := e.do(t, http.MethodPost, "/graphql", strings.NewReader(body),
					http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + player}})
				refused(t, e, before, w, http.StatusBadRequest, "BAD_USER_INPUT")
			}
		})
	}
	t.Run("Int32MaxReachesTheResolver", func(t *testing.T) {
		before := e.calls.Load()
		_, errs := gql[json.RawMessage](t, e, "", `{ events(first: 2147483647) { edges { cursor } } }`, nil)
		wantCode(t, errs, "BAD_USER_INPUT") // first must be 1..100
		if n := e.calls.Load() - before; n != 0 {
			t.Fatalf("%d calls", n)
		}
	})
}

func aliasesOfTypename(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " a%d: __typename", i)
	}
	return b.String() + " }"
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHostileClientLeft: a request whose client is gone does no work (local server: the
// request context is cancelled when the connection closes).
func TestHostileClientLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	before := e.calls.Load()
	r := newRequest(t, http.MethodPost, "/graphql", strings.NewReader(`{"query": "{ events { edges { cursor } } me { id } }"}`)).WithContext(ctx)
	r.Header.Set("Content-Type", "application/json")
	w := newRecorder()
	e.h.ServeHTTP(w, r)
	if n := e.calls.Load() - before; n != 0 {
		t.Fatalf("%d DynamoDB calls for a client that left", n)
	}
	if w.Body.Len() != 0 {
		t.Fatalf("wrote %q to a client that left", w.Body.String())
	}
}

// TestDynamoDBBudgetPlansAtLeastWhatRuns: for every screen and several combinations, the
// calls the budget plans (extensions.dynamodb.plannedCalls) are at least the calls made,
// with events and seasons of the most shards (and so lock copies) production allows.
func TestDynamoDBBudgetPlansAtLeastWhatRuns(t *testing.T) {
	t.Parallel()
	e := newEnvShards(t, table.MaxShards) // what production plans
	f := newScoredFixture(t, e, "Budget Bash")
	tok := f.tokens[f.players[0]]
	type costExt struct {
		Calls        int `json:"calls"`
		PlannedCalls int `json:"plannedCalls"`
	}
	after := *mustGQL[struct{ Event tEvent }](t, e, "", eventOp, map[string]any{"id": f.ev.ID, "first": 1}).Event.Leaderboard.PageInfo.EndCursor
	for name, c := range map[string]struct {
		query   string
		vars    map[string]any
		planned int
	}{
		"Events":                 {`{ events(first: 5) { edges { cursor } } }`, nil, 1},
		"EventWithLeaderboard":   {eventOp, map[string]any{"id": f.ev.ID, "first": 2}, 1 + table.MaxShards},
		"EventAndPrediction":     {`query($id: ID!) { event(id: $id) { id } prediction(eventId: $id) { points } }`, map[string]any{"id": f.ev.ID}, 3},
		"LeaderboardAfter":       {`query($id: ID!, $after: String) { event(id: $id) { leaderboard(first: 2, after: $after) { edges { cursor } } } }`, map[string]any{"id": f.ev.ID, "after": after}, 2 + table.MaxShards},
		"TwoSameLeaderboards":    {`query($id: ID!) { event(id: $id) { a: leaderboard(first: 2) { edges { cursor } } b: leaderboard(first: 2) { edges { cursor } } } }`, map[string]any{"id": f.ev.ID}, 1 + table.MaxShards},
		"ProfileWithPredictions": {`query($u: ID!) { user(id: $u) { name predictions(first: 2) { edges { cursor } } } }`, map[string]any{"u": f.players[1]}, 3},
		"MeAndStandings":         {`{ me { id predictions { edges { cursor } } } standings(season: 2030) { edges { cursor } } }`, nil, 4 + table.MaxShards},
		"MergedAliases":          {`query($id: ID!) { event(id: $id) { id } event(id: $id) { name } }`, map[string]any{"id": f.ev.ID}, 1},
		"SkippedField":           {`query($id: ID!) { event(id: $id) { id } standings(season: 2030) @skip(if: true) { edges { cursor } } }`, map[string]any{"id": f.ev.ID}, 1},
		"ListRowLeaderboard":     {`{ events(first: 2) { edges { node { id } } } }`, nil, 1},
	} {
		t.Run(name, func(t *testing.T) {
			resp := e.request(t, tok, c.query, c.vars)
			noErrors(t, resp.Errors)
			var ext costExt
			if err := json.Unmarshal(resp.Extensions["dynamodb"], &ext); err != nil {
				t.Fatalf("extensions %s", resp.Extensions["dynamodb"])
			}
			if ext.PlannedCalls != c.planned || ext.Calls > ext.PlannedCalls {
				t.Fatalf("planned %d (want %d), made %d", ext.PlannedCalls, c.planned, ext.Calls)
			}
		})
	}
	t.Run("TwoRankedPagesRefused", func(t *testing.T) {
		// Two pages of a ranked list are two rounds of one Query per shard, planned for the
		// most shards: over the budget, refused before anything runs.
		before := e.calls.Load()
		q := `query($id: ID!) { event(id: $id) { a: leaderboard(first: 1) { pageInfo { endCursor } } b: leaderboard(first: 2) { edges { cursor } } } }`
		r := refused(t, e, before, e.postJSON(t, tok, hostile.Request{Query: q, Variables: map[string]any{"id": f.ev.ID}}), http.StatusUnprocessableEntity, server.CodeLimitExceeded)
		if limitOf(r) != "dynamodbCalls" || r.Errors[0].Extensions["requested"] != float64(2+2*table.MaxShards) {
			t.Fatalf("errors %+v", r.Errors)
		}
	})
	t.Run("Mutations", func(t *testing.T) {
		up := e.createEvent(t, "Budget Upcoming", e.clock.Now().Add(48*time.Hour), threeMatchCard()...)
		admin := e.admin(t)
		for _, c := range []struct {
			name, token, query string
			vars               map[string]any
			planned            int
		}{
			{"Register", e.token(t, "p-fresh", "Fresh"), `mutation { register(name: "Budget Fresh") { id } }`, nil, 7},
			{"RegisterRename", tok, `mutation { register(name: "Budget Ace Renamed") { id } }`, nil, 7},
			{"SubmitPrediction", tok, `mutation($e: ID!, $m: ID!) { submitPrediction(eventId: $e, picks: [{matchId: $m, team: 1}]) { eventId } }`,
				map[string]any{"e": up.ID, "m": up.Matches[0].ID}, 3},
			{"CreateEvent", admin, `mutation { createEvent(input: {name: "Budget Bonanza", startsAt: "2030-09-09T20:00:00Z"}) { id } }`, nil, 2 + dynamo.MaxLockCopyBatches},
			{"UpdateEventRename", admin, `mutation($e: ID!) { updateEvent(id: $e, input: {name: "Budget Renamed"}) { id } }`, map[string]any{"e": up.ID}, table.MaxShards + 4 + 2*dynamo.MaxLockCopyBatches},
			{"AddMatch", admin, `mutation($e: ID!) { addMatch(eventId: $e, input: {name: "Added", points: 5, teams: [{members: ["A"]}, {members: ["B"]}]}) { id } }`, map[string]any{"e": up.ID}, 3 + 2*dynamo.MaxLockCopyBatches},
		} {
			t.Run(c.name, func(t *testing.T) {
				resp := e.request(t, c.token, c.query, c.vars)
				noErrors(t, resp.Errors)
				var ext costExt
				if err := json.Unmarshal(resp.Extensions["dynamodb"], &ext); err != nil {
					t.Fatalf("extensions %s", resp.Extensions["dynamodb"])
				}
				if ext.PlannedCalls != c.planned || ext.Calls > ext.PlannedCalls {
					t.Fatalf("planned %d (want %d), made %d", ext.PlannedCalls, c.planned, ext.Calls)
				}
			})
		}
	})
	t.Run("ConfiguredBudget", func(t *testing.T) {
		small := newEnv(t, func(c *server.Config) { c.Limits.MaxDynamoDBCalls = 1 })
		before := small.calls.Load()
		q := fmt.Sprintf(`{ events { edges { cursor } } standings(season: %d) { edges { cursor } } }`, 2030)
		r := refused(t, small, before, small.postJSON(t, "", hostile.Request{Query: q}), http.StatusUnprocessableEntity, server.CodeLimitExceeded)
		if limitOf(r) != "dynamodbCalls" {
			t.Fatalf("limit %q", limitOf(r))
		}
	})
}

// tamperCursor flips one bit in the middle of a cursor's bytes.
func tamperCursor(t *testing.T, cursor string, byteIndex int) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		t.Fatalf("cursor %q is not base64url: %v", cursor, err)
	}
	b[byteIndex%len(b)] ^= 0x10
	return base64.RawURLEncoding.EncodeToString(b)
}

// TestHostileRow6Cursors: a cursor edited in any way, or presented for another event,
// season or user, is BAD_USER_INPUT, and no page is read for it.
func TestHostileRow6Cursors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := newScoredFixture(t, e, "Cursor Clash A")
	b := newScoredFixture(t, e, "Cursor Clash B")
	lbOp := `query($id: ID!, $after: String) { event(id: $id) { leaderboard(first: 1, after: $after) { edges { node { rank user { id } } } pageInfo { endCursor } } } }`
	type lbData struct {
		Event struct{ Leaderboard tConn[tPrediction] }
	}
	first := mustGQL[lbData](t, e, "", lbOp, map[string]any{"id": a.ev.ID})
	cur := *first.Event.Leaderboard.PageInfo.EndCursor
	// The genuine cursor works on its own list.
	next := mustGQL[lbData](t, e, "", lbOp, map[string]any{"id": a.ev.ID, "after": cur})
	if n := nodes(&next.Event.Leaderboard); len(n) != 1 || *n[0].Rank != 2 {
		t.Fatalf("second page %+v", n)
	}
	leaderboardRefused := func(t *testing.T, event, after string) {
		t.Helper()
		before := e.calls.Load()
		_, errs := gql[json.RawMessage](t, e, "", lbOp, map[string]any{"id": event, "after": after})
		wantCode(t, errs, "BAD_USER_INPUT")
		if n := e.calls.Load() - before; n > 1 { // the event itself, never the page
			t.Fatalf("%d DynamoDB calls", n)
		}
	}
	t.Run("LeaderboardOfAnotherEvent", func(t *testing.T) { leaderboardRefused(t, b.ev.ID, cur) })
	t.Run("LeaderboardEveryByteEdited", func(t *testing.T) {
		raw, _ := base64.RawURLEncoding.DecodeString(cur)
		for i := range raw {
			leaderboardRefused(t, a.ev.ID, tamperCursor(t, cur, i))
		}
	})
	t.Run("ForgedOldFormat", func(t *testing.T) {
		for name, forged := range forgedCursors() {
			t.Run(name, func(t *testing.T) { leaderboardRefused(t, a.ev.ID, forged) })
		}
	})
	t.Run("StandingsEdited", func(t *testing.T) {
		st := mustGQL[standingsData](t, e, "", `query($after: String) { standings(season: 2030, first: 1, after: $after) { edges { cursor } pageInfo { endCursor } } }`, nil)
		sc := *st.Standings.PageInfo.EndCursor
		for _, forged := range []string{tamperCursor(t, sc, 3), tamperCursor(t, sc, 9), cur} {
			before := e.calls.Load()
			_, errs := gql[json.RawMessage](t, e, "", `query($after: String) { standings(season: 2030, after: $after) { edges { cursor } } }`, map[string]any{"after": forged})
			wantCode(t, errs, "BAD_USER_INPUT")
			if n := e.calls.Load() - before; n != 0 {
				t.Fatalf("%d DynamoDB calls", n)
			}
		}
		_, errs := gql[json.RawMessage](t, e, "", `query($after: String) { standings(season: 2029, after: $after) { edges { cursor } } }`, map[string]any{"after": sc})
		wantCode(t, errs, "BAD_USER_INPUT")
	})
	t.Run("ProfileOfAnotherPlayer", func(t *testing.T) {
		profile := `query($u: ID!, $after: String) { user(id: $u) { predictions(first: 1, after: $after) { edges { cursor } pageInfo { endCursor } } } }`
		type pData struct {
			User struct{ Predictions tConn[tPrediction] }
		}
		// Each player has one scored prediction per fixture: two in all.
		p := mustGQL[pData](t, e, "", profile, map[string]any{"u": a.players[0]})
		pc := *p.User.Predictions.PageInfo.EndCursor
		mustGQL[pData](t, e, "", profile, map[string]any{"u": a.players[0], "after": pc})
		for _, c := range []struct{ user, after string }{{a.players[1], pc}, {a.players[0], tamperCursor(t, pc, 5)}} {
			before := e.calls.Load()
			_, errs := gql[json.RawMessage](t, e, "", profile, map[string]any{"u": c.user, "after": c.after})
			wantCode(t, errs, "BAD_USER_INPUT")
			if n := e.calls.Load() - before; n > 2 { // the profile and its ranks, never the page
				t.Fatalf("%d DynamoDB calls", n)
			}
		}
	})
}

// TestHostileRow7TimeOffsets: RFC 3339 offsets run to ±23:59; +24:00 is BAD_USER_INPUT,
// refused before the resolver.
func TestHostileRow7TimeOffsets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.admin(t)
	for name, startsAt := range map[string]string{"Plus24": "2026-12-21T10:00:00+24:00", "Minus24": "2026-12-21T10:00:00-24:00", "Minutes60": "2026-12-21T10:00:00+05:60"} {
		t.Run(name, func(t *testing.T) {
			before := e.calls.Load()
			_, errs := gql[json.RawMessage](t, e, admin, createEventOp, map[string]any{"input": map[string]any{"name": "Offset Overload", "startsAt": startsAt}})
			wantCode(t, errs, "BAD_USER_INPUT")
			lit := `mutation { createEvent(input: {name: "Offset Overload", startsAt: "` + startsAt + `"}) { id } }`
			_, errs = gql[json.RawMessage](t, e, admin, lit, nil)
			wantCode(t, errs, "BAD_USER_INPUT")
			if n := e.calls.Load() - before; n != 0 {
				t.Fatalf("%d DynamoDB calls", n)
			}
		})
	}
	ev := e.createEvent(t, "Offset Edge", time.Date(2030, 12, 21, 10, 0, 0, 0, time.FixedZone("", -(23*3600+59*60))))
	if ev.StartsAt != "2030-12-22T09:59:00Z" {
		t.Fatalf("startsAt %s", ev.StartsAt)
	}
}

// TestHostileRow9Names: names with bidi overrides or zero-width characters are refused
// before anything is written; names are stored in NFC.
func TestHostileRow9Names(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, "p-names", "Names")
	registerOp := `mutation($n: String!) { register(name: $n) { id name } }`
	for name, n := range map[string]string{
		"RightToLeftOverride": "Evil\u202eNomad",
		"ZeroWidthSpace":      "Ad\u200bmin",
		"ZeroWidthJoiner":     "Ad\u200dmin",
		"ByteOrderMark":       "\ufeffAdmin",
		"Isolate":             "Adm\u2067in",
	} {
		t.Run("Register"+name, func(t *testing.T) {
			before := e.calls.Load()
			_, errs := gql[json.RawMessage](t, e, tok, registerOp, map[string]any{"n": n})
			wantCode(t, errs, "BAD_USER_INPUT")
			if c := e.calls.Load() - before; c != 0 {
				t.Fatalf("%d DynamoDB calls", c)
			}
		})
	}
	t.Run("EventAndMatchNames", func(t *testing.T) {
		before := e.calls.Load()
		for _, in := range []map[string]any{
			{"name": "Double\u202eOr Nothing", "startsAt": t0.Add(time.Hour).Format(time.RFC3339)},
			{"name": "Dynamite", "startsAt": t0.Add(time.Hour).Format(time.RFC3339), "matches": []any{match("Main\u200b Event", 10, "A", "B")}},
			{"name": "Dynamite", "startsAt": t0.Add(time.Hour).Format(time.RFC3339), "matches": []any{match("Main Event", 10, "Hang\u2066man", "B")}},
		} {
			_, errs := gql[json.RawMessage](t, e, e.admin(t), createEventOp, map[string]any{"input": in})
			wantCode(t, errs, "BAD_USER_INPUT")
		}
		if c := e.calls.Load() - before; c != 0 {
			t.Fatalf("%d DynamoDB calls", c)
		}
	})
	t.Run("StoredInNFC", func(t *testing.T) {
		d := mustGQL[struct{ Register tUser }](t, e, tok, registerOp, map[string]any{"n": "Rey Fe\u0301nix"})
		if d.Register.Name != "Rey F\u00e9nix" {
			t.Fatalf("name %q", d.Register.Name)
		}
	})
	t.Run("PicksCheckedBeforeReading", func(t *testing.T) {
		many := make([]any, 31)
		for i := range many {
			many[i] = map[string]any{"matchId": fmt.Sprintf("00000000-0000-4000-8000-%012d", i), "team": 0}
		}
		before := e.calls.Load()
		for _, picks := range [][]any{many, {map[string]any{"matchId": "not-a-uuid", "team": 0}}, {}} {
			_, errs := gql[json.RawMessage](t, e, tok, submitOp, map[string]any{"e": "2030-06-16-x", "picks": picks})
			wantCode(t, errs, "BAD_USER_INPUT")
		}
		if c := e.calls.Load() - before; c != 0 {
			t.Fatalf("%d DynamoDB calls", c)
		}
	})
}
