package server_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/internal/testlog"
	"github.com/pickem/api/server"
)

func withLog(l *testlog.Buffer) envOption {
	return func(c *server.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
}

// only returns the lines with message msg.
func only(lines []map[string]any, msg string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if strings.HasPrefix(l["msg"].(string), msg) {
			out = append(out, l)
		}
	}
	return out
}

func TestAccessLogOneLinePerRequest(t *testing.T) {
	var logs testlog.Buffer
	e := newEnv(t, withLog(&logs))
	ev := e.createEvent(t, "Access Night", t0.Add(48*time.Hour), threeMatchCard()...)
	player := e.token(t, "p1", "Pat")
	logs.Take(t)

	tests := []struct {
		name                string
		token, query        string
		wantOperation       string
		wantStatus, wantDDB int
		wantCaller          string
	}{
		{"NamedOperation", player, `query Card($id: ID!) { event(id: $id) { id } prediction(eventId: $id) { points } }`, "Card", 200, 2, "p1"},
		{"AnonymousOperation", "", `{ events { edges { cursor } } }`, "query {events}", 200, 1, "anonymous"},
		{"InvalidToken", "not-a-token", `{ events { edges { cursor } } }`, "query {events}", 200, 0, "invalid token"},
		{"ParseError", "", `{ events(`, "", 422, 0, "anonymous"},
		// A document's own operation name is not bounded like operationName: the line
		// quotes 128 bytes of it, not the 60 KB.
		{"LongOperationName", "", "query " + strings.Repeat("N", 60_000) + " { __typename }", strings.Repeat("N", 128) + "…", 200, 0, "anonymous"},
	}
	// DynamoDB Local reports capacity: a line with calls carries what they consumed (reads
	// here), a line without calls leaves the capacity out.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.request(t, tt.token, tt.query, map[string]any{"id": ev.ID})
			lines := only(logs.Take(t), "request")
			if len(lines) != 1 {
				t.Fatalf("%d access-log lines, want 1: %v", len(lines), lines)
			}
			l := lines[0]
			if l["level"] != "INFO" || l["method"] != "POST" || l["path"] != "/graphql" || l["operation"] != tt.wantOperation ||
				l["status"] != float64(tt.wantStatus) || l["dynamodbCalls"] != float64(tt.wantDDB) || l["caller"] != tt.wantCaller {
				t.Errorf("access-log line %v; want operation %q status %d dynamodbCalls %d caller %q",
					l, tt.wantOperation, tt.wantStatus, tt.wantDDB, tt.wantCaller)
			}
			rcu, hasRCU := l["readCapacityUnits"].(float64)
			wcu, hasWCU := l["writeCapacityUnits"].(float64)
			if tt.wantDDB > 0 && (!hasRCU || rcu <= 0 || !hasWCU || wcu != 0) || tt.wantDDB == 0 && (hasRCU || hasWCU) {
				t.Errorf("access-log line %v: capacity %v/%v for %d calls", l, l["readCapacityUnits"], l["writeCapacityUnits"], tt.wantDDB)
			}
			if ms, ok := l["durationMs"].(float64); !ok || ms < 0 {
				t.Errorf("durationMs = %v", l["durationMs"])
			}
		})
	}
	t.Run("OversizedBody", func(t *testing.T) {
		w := e.do(t, http.MethodPost, "/graphql", strings.NewReader(`{"query":"`+strings.Repeat("x", 70<<10)+`"}`), http.Header{"Content-Type": {"application/json"}})
		lines := only(logs.Take(t), "request")
		if w.Code != http.StatusRequestEntityTooLarge || len(lines) != 1 || lines[0]["status"] != float64(413) {
			t.Fatalf("status %d, lines %v", w.Code, lines)
		}
	})
}

func TestCORSRejectionsAreLogged(t *testing.T) {
	var logs testlog.Buffer
	e := newEnv(t, withLog(&logs)) // allows http://localhost:5173
	preflight := func(origin, headers string) http.Header {
		w := e.do(t, http.MethodOptions, "/graphql", nil, http.Header{
			"Origin": {origin}, "Access-Control-Request-Method": {"POST"}, "Access-Control-Request-Headers": {headers}})
		return w.Header()
	}
	warnings := func() []map[string]any { return only(logs.Take(t), "CORS") }

	t.Run("OriginNotAllowed", func(t *testing.T) {
		e.post(t, "", map[string]any{"query": "{ events { edges { cursor } } }"}, http.Header{"Origin": {"http://localhost:4200"}})
		w := warnings()
		if len(w) != 1 || w[0]["level"] != "WARN" || w[0]["origin"] != "http://localhost:4200" || !strings.Contains(w[0]["fix"].(string), "PICKEM_ALLOWED_ORIGINS") {
			t.Fatalf("warnings %v", w)
		}
	})
	t.Run("ApolloHeadersAllowed", func(t *testing.T) {
		// As browsers send it (Fetch standard): lowercase, sorted, comma-separated.
		h := preflight("http://localhost:5173", "apollographql-client-name,apollographql-client-version,authorization,content-type")
		if h.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || !strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "apollographql-client-name") {
			t.Fatalf("preflight answer %v", h)
		}
		if w := warnings(); len(w) != 0 {
			t.Fatalf("warnings for allowed headers: %v", w)
		}
	})
	t.Run("HeaderNotAllowed", func(t *testing.T) {
		h := preflight("http://localhost:5173", "content-type,x-trace-me")
		w := warnings()
		if h.Get("Access-Control-Allow-Origin") != "" || len(w) != 1 || w[0]["headers"] != "x-trace-me" || !strings.Contains(w[0]["allowed"].(string), "apollographql-client-name") {
			t.Fatalf("preflight answer %v, warnings %v", h, w)
		}
	})
	t.Run("HeaderListNotAsBrowsersSendIt", func(t *testing.T) {
		// Allowed headers, but unsorted and capitalised (curl, a hand-made preflight):
		// rs/cors refuses it, and says so in the log rather than silently.
		h := preflight("http://localhost:5173", "Content-Type,Authorization")
		w := warnings()
		if h.Get("Access-Control-Allow-Origin") != "" || len(w) != 1 || w[0]["headers"] != "Content-Type,Authorization" || !strings.Contains(w[0]["why"].(string), "sorted") {
			t.Fatalf("preflight answer %v, warnings %v", h, w)
		}
	})
	t.Run("SameOriginIsNotCORS", func(t *testing.T) {
		e.post(t, "", map[string]any{"query": "{ events { edges { cursor } } }"}, http.Header{"Origin": {"http://example.com"}}) // httptest's Host
		if w := warnings(); len(w) != 0 {
			t.Fatalf("warnings for a same-origin request: %v", w)
		}
	})
}
