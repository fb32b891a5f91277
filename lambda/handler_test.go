package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/testlog"
	"github.com/pickem/api/operations"
)

// testCursorKey is a PICKEM_CURSOR_KEYS value for the tests (32 bytes, base64).
const testCursorKey = "bGFtYmRhLXRlc3QtY3Vyc29yLWtleS0wMTIzNDU2Nzg5"

// testEnv is the Lambda environment of the in-process tests, as a getenv function.
func testEnv(t *testing.T, table string, extra ...string) func(string) string {
	t.Helper()
	env := map[string]string{
		"TABLE_NAME":             table,
		"DYNAMODB_ENDPOINT":      dynamotest.Endpoint(t),
		"COGNITO_USER_POOL_ID":   testPoolID,
		"COGNITO_CLIENT_ID":      testClientID,
		"PICKEM_ALLOWED_ORIGINS": fixtureOrigin,
		"LOG_LEVEL":              "info",
		"PICKEM_CURSOR_KEYS":     testCursorKey,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return func(k string) string { return env[k] }
}

// invoker runs raw events through the function exactly as the Lambda runtime does:
// lambda.NewHandler decodes the JSON payload into the handler's event type and encodes its
// response.
type invoker struct {
	h lambda.Handler
	n int
}

func (in *invoker) invoke(t *testing.T, payload []byte) (events.APIGatewayV2HTTPResponse, string) {
	t.Helper()
	in.n++
	reqID := fmt.Sprintf("inproc-%03d", in.n)
	ctx := lambdacontext.NewContext(t.Context(), &lambdacontext.LambdaContext{
		AwsRequestID:       reqID,
		InvokedFunctionArn: "arn:aws:lambda:eu-west-1:123456789012:function:pickem-api",
	})
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second) // the function's timeout
	defer cancel()
	out, err := in.h.Invoke(ctx, payload)
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("response payload: %v\n%s", err, out)
	}
	return resp, reqID
}

// logCost logs what a request cost in DynamoDB (the cost extension is on in this test).
func logCost(t *testing.T, what string, g gqlResponse) {
	t.Helper()
	t.Logf("cost of %s: %s", what, g.Extensions["dynamodb"])
}

func TestHandlerRecordedEvents(t *testing.T) {
	table := newTable(t)
	logs := &testlog.Buffer{}
	fn, err := newFunction(t.Context(), testEnv(t, table, "PICKEM_COST_EXTENSION", "true"), logs)
	if err != nil {
		t.Fatalf("newFunction: %v", err)
	}
	in := &invoker{h: lambda.NewHandler(fn.Handle)}
	var requestIDs []string
	invoke := func(t *testing.T, payload []byte) events.APIGatewayV2HTTPResponse {
		t.Helper()
		resp, id := in.invoke(t, payload)
		requestIDs = append(requestIDs, id)
		return resp
	}

	var matchIDs []string
	t.Run("AdminPOSTMutationWithFlattenedGroups", func(t *testing.T) {
		g := graphQL(t, invoke(t, rawFixture(t, fixtureAdminPOST)))
		var d createEventData
		g.data(t, &d)
		e := d.CreateEvent
		if e.ID != fixtureEvent || e.Name != "Lambda Night" || e.State != "UPCOMING" || e.Season != 2099 || e.Locked {
			t.Errorf("createEvent = %+v", e)
		}
		if len(e.Matches) != 2 || e.Matches[0].Name != "Singles Match" || e.Matches[1].Points != 5 {
			t.Fatalf("matches = %+v", e.Matches)
		}
		for _, m := range e.Matches {
			matchIDs = append(matchIDs, m.ID)
		}
		logCost(t, "createEvent (event + 2 matches)", g)
	})

	t.Run("AnonymousGETQuery", func(t *testing.T) {
		resp := invoke(t, rawFixture(t, fixtureAnonymousGET))
		g := graphQL(t, resp)
		if got := resp.Headers["Access-Control-Allow-Origin"]; got != fixtureOrigin {
			t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, fixtureOrigin)
		}
		if !strings.Contains(resp.Headers["Vary"], "Origin") {
			t.Errorf("Vary = %q, want Origin in it", resp.Headers["Vary"])
		}
		var d eventsData
		g.data(t, &d)
		if len(d.Events.Edges) != 1 || d.Events.Edges[0].Node.ID != fixtureEvent || d.Events.Edges[0].Node.State != "UPCOMING" {
			t.Errorf("events = %+v", d.Events.Edges)
		}
		logCost(t, "events(first: 5), anonymous", g)
	})

	t.Run("PlayerPOSTMutationWithAuthorizerClaims", func(t *testing.T) {
		resp := invoke(t, rawFixture(t, fixturePlayerPOST))
		if ct := resp.Headers["Content-Type"]; ct != "application/graphql-response+json" {
			t.Errorf("Content-Type %q, want application/graphql-response+json (the fixture's Accept)", ct)
		}
		g := graphQL(t, resp)
		var d struct{ Register struct{ ID, Name string } }
		g.data(t, &d)
		if d.Register.ID != playerSub || d.Register.Name != "Pat Player" {
			t.Errorf("register = %+v, want the claims' sub %s", d.Register, playerSub)
		}
		logCost(t, "register", g)
	})

	t.Run("Base64EncodedBody", func(t *testing.T) {
		g := graphQL(t, invoke(t, rawFixture(t, fixtureBase64POST)))
		var d struct{ Me *struct{ ID, Name string } }
		g.data(t, &d)
		if d.Me == nil || d.Me.ID != playerSub || d.Me.Name != "Pat Player" {
			t.Errorf("me = %+v", d.Me)
		}
		logCost(t, "me", g)
	})

	t.Run("PlayerSubmitsPredictionAndReadsCard", func(t *testing.T) {
		if len(matchIDs) != 2 {
			t.Skip("needs the event created by AdminPOSTMutationWithFlattenedGroups")
		}
		ev := withBody(t, fixture(t, fixturePlayerPOST),
			`mutation Pick($e: ID!, $picks: [PickInput!]!) { submitPrediction(eventId: $e, picks: $picks) { eventId user { id name } picks { matchId team } } }`,
			map[string]any{"e": fixtureEvent, "picks": []map[string]any{{"matchId": matchIDs[0], "team": 1}, {"matchId": matchIDs[1], "team": 0}}})
		g := graphQL(t, invoke(t, marshal(t, ev)))
		var d struct {
			SubmitPrediction struct {
				EventID string
				User    struct{ ID, Name string }
				Picks   []struct {
					MatchID string
					Team    int
				}
			}
		}
		g.data(t, &d)
		p := d.SubmitPrediction
		if p.EventID != fixtureEvent || p.User.ID != playerSub || len(p.Picks) != 2 || p.Picks[0].Team != 1 {
			t.Errorf("submitPrediction = %+v", p)
		}
		logCost(t, "submitPrediction (2 picks)", g)

		ev = withBody(t, fixture(t, fixturePlayerPOST),
			`query Card($e: ID!) { event(id: $e) { id matches { id name } } prediction(eventId: $e) { picks { matchId team } } }`,
			map[string]any{"e": fixtureEvent})
		g = graphQL(t, invoke(t, marshal(t, ev)))
		var card struct {
			Event struct {
				ID      string
				Matches []struct{ ID string }
			}
			Prediction *struct{ Picks []struct{ Team int } }
		}
		g.data(t, &card)
		if len(card.Event.Matches) != 2 || card.Prediction == nil || len(card.Prediction.Picks) != 2 {
			t.Errorf("event + prediction = %+v", card)
		}
		logCost(t, "event(id) card + prediction(eventId), player", g)
	})

	for _, tc := range []struct {
		name string
		ev   func(t *testing.T) events.APIGatewayV2HTTPRequest
		code string
	}{
		{"AnonymousMutationUnauthenticated", func(t *testing.T) events.APIGatewayV2HTTPRequest {
			return anonymous(fixture(t, fixturePlayerPOST))
		}, "UNAUTHENTICATED"},
		{"PlayerClaimsCannotAdminister", func(t *testing.T) events.APIGatewayV2HTTPRequest {
			ev := fixture(t, fixtureAdminPOST)
			ev.RequestContext.Authorizer.JWT.Claims = fixture(t, fixturePlayerPOST).RequestContext.Authorizer.JWT.Claims
			return ev
		}, "FORBIDDEN"},
		{"IdentityHeadersIgnored", func(t *testing.T) events.APIGatewayV2HTTPRequest {
			ev := anonymous(fixture(t, fixtureAdminPOST))
			ev.Headers["x-user-id"] = adminSub
			ev.Headers["x-user-groups"] = "admin"
			return ev
		}, "UNAUTHENTICATED"},
		{"HS256DevTokenRejected", func(t *testing.T) events.APIGatewayV2HTTPRequest {
			tok, err := auth.MintHS256([]byte("dev-secret-0123456789abcdef0123456789"),
				auth.Identity{ID: adminSub, Name: "Forger", Groups: []string{auth.AdminGroup}}, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			ev := anonymous(fixture(t, fixtureAdminPOST))
			ev.Headers["authorization"] = "Bearer " + tok
			return ev
		}, "UNAUTHENTICATED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := graphQL(t, invoke(t, marshal(t, tc.ev(t))))
			if got := g.code(); got != tc.code {
				t.Errorf("extensions.code = %q, want %q (errors %+v)", got, tc.code, g.Errors)
			}
			if string(g.Data) != "null" {
				t.Errorf("data = %s, want null", g.Data)
			}
		})
	}

	t.Run("MalformedBase64Body", func(t *testing.T) {
		ev := fixture(t, fixtureBase64POST)
		ev.Body = "%%% not base64 %%%"
		resp := invoke(t, marshal(t, ev))
		if resp.StatusCode != 400 {
			t.Fatalf("status %d, want 400; body %s", resp.StatusCode, resp.Body)
		}
		var g gqlResponse
		if err := json.Unmarshal([]byte(resp.Body), &g); err != nil || g.code() != "BAD_REQUEST" {
			t.Errorf("body %s: code %q, err %v", resp.Body, g.code(), err)
		}
	})

	t.Run("DisallowedOriginGetsNoCORSHeader", func(t *testing.T) {
		ev := fixture(t, fixtureAnonymousGET)
		ev.Headers["origin"] = "https://evil.example"
		resp := invoke(t, marshal(t, ev))
		graphQL(t, resp)
		if got, ok := resp.Headers["Access-Control-Allow-Origin"]; ok {
			t.Errorf("Access-Control-Allow-Origin = %q for a foreign origin", got)
		}
	})

	t.Run("HealthzGET", func(t *testing.T) {
		ev := fixture(t, fixtureAnonymousGET)
		ev.RouteKey, ev.RawPath, ev.RawQueryString, ev.QueryStringParameters = "GET /healthz", "/healthz", "", nil
		ev.RequestContext.RouteKey, ev.RequestContext.HTTP.Path = "GET /healthz", "/healthz"
		resp := invoke(t, marshal(t, ev))
		if resp.StatusCode != 200 || resp.Body != "ok\n" || !strings.HasPrefix(resp.Headers["Content-Type"], "text/plain") {
			t.Errorf("healthz: %d %q %v", resp.StatusCode, resp.Body, resp.Headers)
		}
	})

	t.Run("LogsAreJSONWithRequestID", func(t *testing.T) {
		lines := logLines(t, logs.String())
		seen := requestLogIDs(lines)
		for _, id := range requestIDs {
			if !seen[id] {
				t.Errorf("no access-log line with requestId %q", id)
			}
		}
		perID := map[any]int{}
		for _, l := range lines {
			if l["msg"] != "request" {
				continue
			}
			perID[l["requestId"]]++
			for _, k := range []string{"status", "path", "durationMs", "operation", "dynamodbCalls", "caller", "apiRequestId"} {
				if _, ok := l[k]; !ok {
					t.Errorf("access-log line lacks %s: %v", k, l)
				}
			}
		}
		for id, n := range perID {
			if n != 1 {
				t.Errorf("%d access-log lines for requestId %v, want one (the API's, not a second one from Handle)", n, id)
			}
		}
		if s := logs.String(); strings.Contains(s, "Bearer ") || strings.Contains(s, "eyJ") {
			t.Errorf("logs contain a token:\n%s", s)
		}
	})
}

// TestHandlerLambdaDefaults checks what is off in Lambda unless enabled: the playground,
// the cost extension and introspection.
func TestHandlerLambdaDefaults(t *testing.T) {
	table := newTable(t)
	fn, err := newFunction(t.Context(), testEnv(t, table), &testlog.Buffer{})
	if err != nil {
		t.Fatalf("newFunction: %v", err)
	}
	in := &invoker{h: lambda.NewHandler(fn.Handle)}

	t.Run("NoCostExtension", func(t *testing.T) {
		resp, _ := in.invoke(t, rawFixture(t, fixtureAnonymousGET))
		g := graphQL(t, resp)
		if _, ok := g.Extensions["dynamodb"]; ok {
			t.Errorf("extensions.dynamodb present with PICKEM_COST_EXTENSION unset: %s", resp.Body)
		}
	})
	t.Run("NoIntrospection", func(t *testing.T) {
		for name, q := range map[string]string{
			"Schema": "{ __schema { queryType { name } } }",
			"Type":   `{ __type(name: "Event") { fields { name } } }`,
		} {
			resp, _ := in.invoke(t, marshal(t, withBody(t, anonymous(fixture(t, fixtureBase64POST)), q, nil)))
			var g gqlResponse
			if err := json.Unmarshal([]byte(resp.Body), &g); err != nil || resp.StatusCode != 422 || len(g.Errors) != 1 ||
				g.Errors[0].Extensions["code"] != "GRAPHQL_VALIDATION_FAILED" {
				t.Errorf("%s with PICKEM_INTROSPECTION unset: status %d %s", name, resp.StatusCode, resp.Body)
			}
		}
	})
	t.Run("IntrospectionWhenEnabled", func(t *testing.T) {
		fn, err := newFunction(t.Context(), testEnv(t, table, "PICKEM_INTROSPECTION", "true"), &testlog.Buffer{})
		if err != nil {
			t.Fatalf("newFunction: %v", err)
		}
		on := &invoker{h: lambda.NewHandler(fn.Handle)}
		resp, _ := on.invoke(t, marshal(t, withBody(t, anonymous(fixture(t, fixtureBase64POST)), "{ __schema { queryType { name } } }", nil)))
		if g := graphQL(t, resp); len(g.Errors) != 0 || !strings.Contains(string(g.Data), `"Query"`) {
			t.Errorf("PICKEM_INTROSPECTION=true: %s", resp.Body)
		}
	})
	t.Run("NoPlayground", func(t *testing.T) {
		ev := fixture(t, fixtureAnonymousGET)
		ev.RouteKey, ev.RawPath, ev.RawQueryString, ev.QueryStringParameters = "$default", "/", "", nil
		ev.RequestContext.HTTP.Path = "/"
		resp, _ := in.invoke(t, marshal(t, ev))
		if resp.StatusCode != 404 {
			t.Errorf("GET / = %d, want 404 (playground off)", resp.StatusCode)
		}
	})
}

// TestNewFunctionConfig checks configuration errors surface from newFunction (main exits
// with them, which Lambda reports as an init failure).
func TestNewFunctionConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"DevSecretRefused", []string{"PICKEM_DEV_SECRET", "s3cret-s3cret-s3cret-s3cret-s3cret"}, "PICKEM_DEV_SECRET"},
		{"PoolWithoutClient", []string{"COGNITO_CLIENT_ID", ""}, "COGNITO_CLIENT_ID"},
		{"MalformedPool", []string{"COGNITO_USER_POOL_ID", "not-a-pool"}, "COGNITO_USER_POOL_ID"},
		{"BadLogLevel", []string{"LOG_LEVEL", "loud"}, "LOG_LEVEL"},
		{"NoCursorKeys", []string{"PICKEM_CURSOR_KEYS", ""}, "PICKEM_CURSOR_KEYS"},
		{"MissingTrustedDocuments", []string{"PICKEM_TRUSTED_DOCUMENTS", "/nonexistent/manifest.json"}, "trusted documents"},
		{"EmbeddedWithoutAManifest", []string{"PICKEM_TRUSTED_DOCUMENTS", "embedded"}, "MANIFEST="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newFunction(t.Context(), testEnv(t, "unused", tc.extra...), &testlog.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("newFunction error = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// TestHandlerTrustedDocuments: with PICKEM_TRUSTED_DOCUMENTS=builtin the function runs the
// frontend's documents as the clients' tooling wrote them and refuses any other before
// parsing it.
func TestHandlerTrustedDocuments(t *testing.T) {
	table := newTable(t)
	fn, err := newFunction(t.Context(), testEnv(t, table, "PICKEM_TRUSTED_DOCUMENTS", "builtin"), &testlog.Buffer{})
	if err != nil {
		t.Fatalf("newFunction: %v", err)
	}
	builtin, err := operations.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	in := &invoker{h: lambda.NewHandler(fn.Handle)}
	ev := anonymous(fixture(t, fixtureBase64POST))
	ran := 0
	for hash, doc := range builtin {
		if !strings.Contains(doc, "query EventList") {
			continue
		}
		ran++
		resp, _ := in.invoke(t, marshal(t, withBody(t, ev, doc, map[string]any{"first": 3})))
		if g := graphQL(t, resp); len(g.Errors) != 0 {
			t.Fatalf("the frontend's EventList %s: %s", hash, resp.Body)
		}
	}
	if ran != 2 {
		t.Fatalf("%d builtin EventList documents, want Apollo's and Codegen's", ran)
	}
	resp, _ := in.invoke(t, marshal(t, withBody(t, ev, "{ events { edges { cursor } } }", nil)))
	var g gqlResponse
	if err := json.Unmarshal([]byte(resp.Body), &g); err != nil || resp.StatusCode != 400 || len(g.Errors) != 1 ||
		g.Errors[0].Extensions["code"] != "UNTRUSTED_DOCUMENT" {
		t.Fatalf("an ad-hoc document: status %d %s", resp.StatusCode, resp.Body)
	}
}
