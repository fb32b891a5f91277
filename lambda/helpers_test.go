package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/testlog"
)

// The tests feed recorded API Gateway HTTP API (payload 2.0) events from testdata/ to the
// function, in-process (handler_test.go) and through the built bootstrap binary
// (e2e_test.go), against DynamoDB Local.
func TestMain(m *testing.M) { dynamotest.Main(m) }

// Fixtures in testdata/.
const (
	fixtureAnonymousGET = "anonymous_get_query.json"  // GET /graphql?query=… events, signed out
	fixturePlayerPOST   = "player_post_mutation.json" // POST register(name) with authorizer JWT claims
	fixtureAdminPOST    = "admin_post_mutation.json"  // POST createEvent with cognito:groups "[admin]"
	fixtureBase64POST   = "player_post_base64.json"   // POST query me, body base64-encoded
)

// Identities and values the fixtures carry.
const (
	playerSub     = "7c3f9b12-4d5e-4f60-8a71-b2c3d4e5f601"
	adminSub      = "a0e1a2d3-4b5c-4d6e-8f70-a1b2c3d4e5ad"
	fixtureOrigin = "https://app.example.com"
	fixtureEvent  = "2099-06-15-lambda-night" // the id createEvent derives in the admin fixture
	testPoolID    = "eu-west-1_AbC123xyz"     // never contacted: no test sends an RS256 token to verify
	testClientID  = "4example0client0id0abcdefg"
)

// rawFixture returns the bytes of testdata/name.
func rawFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixture returns testdata/name decoded, for tests that derive a variant from it.
func fixture(t *testing.T, name string) events.APIGatewayV2HTTPRequest {
	t.Helper()
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(rawFixture(t, name), &ev); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ev
}

// anonymous strips what identifies the caller: authorizer claims and the Authorization
// header.
func anonymous(ev events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPRequest {
	ev.RequestContext.Authorizer = nil
	ev.Headers = cloneHeaders(ev.Headers)
	delete(ev.Headers, "authorization")
	return ev
}

// withBody replaces the event's body with a GraphQL request.
func withBody(t *testing.T, ev events.APIGatewayV2HTTPRequest, query string, vars map[string]any) events.APIGatewayV2HTTPRequest {
	t.Helper()
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	ev.Body, ev.IsBase64Encoded = string(b), false
	ev.Headers = cloneHeaders(ev.Headers)
	delete(ev.Headers, "content-length")
	return ev
}

func cloneHeaders(h map[string]string) map[string]string {
	c := make(map[string]string, len(h))
	for k, v := range h {
		c[k] = v
	}
	return c
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newTable creates a fresh table with the production definition and returns its name.
func newTable(t *testing.T) string {
	t.Helper()
	name := dynamotest.TableName()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := dynamo.New(dynamotest.Client(t), name).EnsureTable(ctx); err != nil {
		t.Fatalf("EnsureTable: %v", err)
	}
	return name
}

// gqlResponse is a GraphQL response body.
type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
	Extensions map[string]json.RawMessage `json:"extensions"`
}

// graphQL checks that resp is a 200 JSON GraphQL response and decodes it.
func graphQL(t *testing.T, resp events.APIGatewayV2HTTPResponse) gqlResponse {
	t.Helper()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d, want 200; body %s", resp.StatusCode, resp.Body)
	}
	// gqlgen answers in the media type the client accepts: the browser fixtures accept
	// application/graphql-response+json, the others application/json.
	if ct := resp.Headers["Content-Type"]; ct != "application/json" && ct != "application/graphql-response+json" {
		t.Errorf("Content-Type %q, want a GraphQL JSON media type", ct)
	}
	if resp.IsBase64Encoded {
		t.Fatalf("JSON response marked base64-encoded")
	}
	var g gqlResponse
	if err := json.Unmarshal([]byte(resp.Body), &g); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, resp.Body)
	}
	return g
}

// data checks that g has no errors and decodes its data into v.
func (g gqlResponse) data(t *testing.T, v any) {
	t.Helper()
	if len(g.Errors) > 0 {
		t.Fatalf("unexpected errors: %+v", g.Errors)
	}
	if err := json.Unmarshal(g.Data, v); err != nil {
		t.Fatalf("data: %v\n%s", err, g.Data)
	}
}

// code returns the extensions.code of the first error, or "".
func (g gqlResponse) code() string {
	if len(g.Errors) == 0 {
		return ""
	}
	c, _ := g.Errors[0].Extensions["code"].(string)
	return c
}

// eventsData is the shape of the anonymous fixture's result.
type eventsData struct {
	Events struct {
		Edges []struct {
			Node struct {
				ID, Name, State string
				Season          int
			}
		}
	}
}

// createEventData is the shape of the admin fixture's result.
type createEventData struct {
	CreateEvent struct {
		ID, Name, State string
		Season          int
		Locked          bool
		Matches         []struct {
			ID       string
			Position int
			Name     string
			Points   int
		}
	}
}

// logLines decodes JSON log lines; a line that is not JSON fails the test.
func logLines(t *testing.T, s string) []map[string]any { return testlog.JSONLines(t, s) }

// requestLogIDs returns the requestId of every "request" access-log line.
func requestLogIDs(lines []map[string]any) map[string]bool {
	ids := map[string]bool{}
	for _, l := range lines {
		if l["msg"] == "request" {
			id, _ := l["requestId"].(string)
			ids[id] = true
		}
	}
	return ids
}
