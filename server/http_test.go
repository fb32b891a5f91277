package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/server"
)

func TestHTTPCORS(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	preflight := func(t *testing.T, origin string) *http.Response {
		t.Helper()
		return e.do(t, http.MethodOptions, "/graphql", nil, http.Header{
			"Origin":                         {origin},
			"Access-Control-Request-Method":  {"POST"},
			"Access-Control-Request-Headers": {"authorization,content-type"},
		}).Result()
	}
	t.Run("PreflightAllowedWithoutDynamoDB", func(t *testing.T) {
		before := e.calls.Load()
		resp := preflight(t, "http://localhost:5173")
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		h := resp.Header
		if got := h.Get("Access-Control-Allow-Origin"); got != "http://localhost:5173" {
			t.Fatalf("Access-Control-Allow-Origin = %q", got)
		}
		if got := h.Get("Access-Control-Allow-Methods"); !strings.Contains(got, "POST") {
			t.Fatalf("Access-Control-Allow-Methods = %q", got)
		}
		allowHeaders := strings.ToLower(h.Get("Access-Control-Allow-Headers"))
		if !strings.Contains(allowHeaders, "authorization") || !strings.Contains(allowHeaders, "content-type") {
			t.Fatalf("Access-Control-Allow-Headers = %q", allowHeaders)
		}
		if got := e.calls.Load() - before; got != 0 {
			t.Fatalf("the preflight made %d DynamoDB calls", got)
		}
		// The counter does see real requests.
		mustGQL[eventsData](t, e, "", eventsOp, nil)
		if e.calls.Load() == before {
			t.Fatal("the call counter counts nothing")
		}
	})
	t.Run("PreflightWithStubStoreNeverCallsIt", func(t *testing.T) {
		h, err := server.New(server.Config{Store: failingStore{t: t}, AllowedOrigins: []string{"http://localhost:5173"}})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := http.NewRequestWithContext(t.Context(), http.MethodOptions, "/graphql", nil)
		r.Header.Set("Origin", "http://localhost:5173")
		r.Header.Set("Access-Control-Request-Method", "POST")
		w := newRecorder()
		h.ServeHTTP(w, r)
		if w.Code < 200 || w.Code > 299 || w.Header().Get("Access-Control-Allow-Origin") != "http://localhost:5173" {
			t.Fatalf("status %d, headers %v", w.Code, w.Header())
		}
	})
	t.Run("PreflightOtherOriginNotAllowed", func(t *testing.T) {
		for _, origin := range []string{"https://evil.example", "http://localhost:5174", "http://localhost:5173.evil.example"} {
			resp := preflight(t, origin)
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
				t.Fatalf("origin %s: Access-Control-Allow-Origin = %q", origin, got)
			}
		}
	})
	t.Run("SimpleRequestHeaders", func(t *testing.T) {
		for origin, want := range map[string]string{"http://localhost:5173": "http://localhost:5173", "https://evil.example": ""} {
			_, _ = e.post(t, "", map[string]any{"query": "{ events { edges { cursor } } }"}, http.Header{"Origin": {origin}})
			w := e.do(t, http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ __typename }"}`),
				http.Header{"Origin": {origin}, "Content-Type": {"application/json"}})
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != want {
				t.Fatalf("origin %s: Access-Control-Allow-Origin = %q, want %q", origin, got, want)
			}
		}
	})
}

func TestHTTPBodyLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.MaxBodyBytes = 4 << 10 })
	big := `{"query":"{ events { edges { cursor } } }","variables":{"pad":"` + strings.Repeat("x", 8<<10) + `"}}`
	check := func(t *testing.T, w interface {
		Result() *http.Response
	}) {
		t.Helper()
		resp := w.Result()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d, want 413: %s", resp.StatusCode, body)
		}
		var r gqlResponse
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("body is not JSON: %s", body)
		}
		wantCode(t, r.Errors, "BAD_USER_INPUT")
	}
	t.Run("DeclaredLength", func(t *testing.T) {
		before := e.calls.Load()
		check(t, e.do(t, http.MethodPost, "/graphql", strings.NewReader(big), http.Header{"Content-Type": {"application/json"}}))
		if e.calls.Load() != before {
			t.Fatal("an oversized request reached DynamoDB")
		}
	})
	t.Run("ChunkedWithoutLength", func(t *testing.T) {
		r := newRequest(t, http.MethodPost, "/graphql", io.MultiReader(strings.NewReader(big)))
		r.ContentLength = -1
		r.Header.Set("Content-Type", "application/json")
		w := newRecorder()
		e.h.ServeHTTP(w, r)
		check(t, w)
	})
	t.Run("UnderTheLimit", func(t *testing.T) {
		mustGQL[eventsData](t, e, "", eventsOp, map[string]any{"first": 5})
	})
}

func TestHTTPDefaultBodyLimit(t *testing.T) {
	t.Parallel()
	h, err := server.New(server.Config{Store: failingStore{t: t}})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat(" ", server.DefaultMaxBodyBytes+1)
	r := newRequest(t, http.MethodPost, "/graphql", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := newRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d", w.Code)
	}
}

func TestHTTPComplexityLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var q strings.Builder
	q.WriteString("{")
	for i := range 5 {
		q.WriteString(" e" + string(rune('a'+i)) + `: events(first: 100) { edges { cursor node { id name startsAt season state locked } } }`)
	}
	q.WriteString(" }")
	before := e.calls.Load()
	_, errs := gql[json.RawMessage](t, e, "", q.String(), nil)
	wantCode(t, errs, "COMPLEXITY_LIMIT_EXCEEDED")
	if e.calls.Load() != before {
		t.Fatal("a refused query reached DynamoDB")
	}
	t.Run("DeepLeaderboardPages", func(t *testing.T) {
		_, errs := gql[json.RawMessage](t, e, "", `{ event(id: "2030-01-01-x") { leaderboard(first: 100) { edges { node { picks { matchId team correct } event { id name startsAt } user { id name } points correct rank updatedAt } } } }
  u: user(id: "x") { predictions(first: 100) { edges { node { picks { matchId team correct } event { id name startsAt } user { id name } points correct rank updatedAt } } } } }`, nil)
		wantCode(t, errs, "COMPLEXITY_LIMIT_EXCEEDED")
	})
	t.Run("ConfiguredLimit", func(t *testing.T) {
		small := newEnv(t, func(c *server.Config) { c.ComplexityLimit = 10 })
		_, errs := gql[json.RawMessage](t, small, "", `{ events(first: 5) { edges { node { id name } } } }`, nil)
		wantCode(t, errs, "COMPLEXITY_LIMIT_EXCEEDED")
		mustGQL[json.RawMessage](t, small, "", `{ me { id } }`, nil)
	})
}

func TestHTTPGraphQLErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for name, c := range map[string]struct{ query, code string }{
		"ParseError":    {"{ events { ", "GRAPHQL_PARSE_FAILED"},
		"UnknownField":  {"{ events { nope } }", "GRAPHQL_VALIDATION_FAILED"},
		"MissingArg":    {"{ event { id } }", "GRAPHQL_VALIDATION_FAILED"},
		"WrongArgType":  {`{ events(first: "ten") { edges { cursor } } }`, "GRAPHQL_VALIDATION_FAILED"},
		"UnknownEnum":   {`mutation { updateEvent(id: "2030-01-01-x", input: {state: CANCELLED}) { id } }`, "GRAPHQL_VALIDATION_FAILED"},
		"UndeclaredVar": {`query { events(first: $n) { edges { cursor } } }`, "GRAPHQL_VALIDATION_FAILED"},
	} {
		t.Run(name, func(t *testing.T) {
			_, errs := gql[json.RawMessage](t, e, "", c.query, nil)
			if len(errs) == 0 || errs[0].Code() != c.code {
				b, _ := json.Marshal(errs)
				t.Fatalf("want %s: %s", c.code, b)
			}
		})
	}
	t.Run("MalformedJSONBody", func(t *testing.T) {
		w := e.do(t, http.MethodPost, "/graphql", strings.NewReader(`{"query": `), http.Header{"Content-Type": {"application/json"}})
		var r gqlResponse
		if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || len(r.Errors) == 0 {
			t.Fatalf("status %d body %s", w.Code, w.Body.String())
		}
		if w.Code == http.StatusOK || w.Code >= 500 {
			t.Fatalf("status %d for a malformed body", w.Code)
		}
	})
	t.Run("GETTransport", func(t *testing.T) {
		w := e.do(t, http.MethodGet, "/graphql?query="+url.QueryEscape("{ events { pageInfo { hasNextPage } } }"), nil, nil)
		var r gqlResponse
		if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || w.Code != http.StatusOK || len(r.Errors) != 0 {
			t.Fatalf("status %d body %s", w.Code, w.Body.String())
		}
	})
	t.Run("GETCannotMutate", func(t *testing.T) {
		w := e.do(t, http.MethodGet, "/graphql?query="+url.QueryEscape(`mutation { register(name: "x") { id } }`), nil,
			http.Header{"Authorization": {"Bearer " + e.token(t, "p-get", "Get")}})
		var r gqlResponse
		_ = json.Unmarshal(w.Body.Bytes(), &r)
		if len(r.Errors) == 0 {
			t.Fatalf("a GET mutation ran: status %d body %s", w.Code, w.Body.String())
		}
	})
}

func TestHTTPAutomaticPersistedQueries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.createEvent(t, "Dynasty", t0.Add(time.Hour))
	query := `query Events { events(first: 5) { edges { node { id } } } }`
	sum := sha256.Sum256([]byte(query))
	hash := hex.EncodeToString(sum[:])
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}
	rows := func(t *testing.T, resp gqlResponse) int {
		t.Helper()
		noErrors(t, resp.Errors)
		var d eventsData
		if err := json.Unmarshal(resp.Data, &d); err != nil {
			t.Fatal(err)
		}
		return len(d.Events.Edges)
	}

	t.Run("UnknownHash", func(t *testing.T) {
		_, resp := e.post(t, "", map[string]any{"extensions": ext}, nil)
		wantCode(t, resp.Errors, "PERSISTED_QUERY_NOT_FOUND")
	})
	t.Run("RegisterThenHashOnly", func(t *testing.T) {
		_, resp := e.post(t, "", map[string]any{"query": query, "extensions": ext}, nil)
		if n := rows(t, resp); n != 1 {
			t.Fatalf("%d rows", n)
		}
		_, resp = e.post(t, "", map[string]any{"extensions": ext}, nil)
		if n := rows(t, resp); n != 1 {
			t.Fatalf("%d rows", n)
		}
	})
	t.Run("HashOnlyOverGET", func(t *testing.T) {
		b, _ := json.Marshal(ext)
		w := e.do(t, http.MethodGet, "/graphql?extensions="+url.QueryEscape(string(b)), nil, nil)
		var r gqlResponse
		if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil {
			t.Fatalf("body %s", w.Body.String())
		}
		if n := rows(t, r); n != 1 {
			t.Fatalf("%d rows", n)
		}
	})
	t.Run("HashMismatch", func(t *testing.T) {
		bad := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": strings.Repeat("0", 64)}}
		_, resp := e.post(t, "", map[string]any{"query": query, "extensions": bad}, nil)
		if len(resp.Errors) == 0 {
			t.Fatal("a query with a wrong hash ran")
		}
	})
}

func TestHTTPHealthzAndPlayground(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		playground bool
		wantRoot   int
	}{
		"PlaygroundOff": {false, http.StatusNotFound},
		"PlaygroundOn":  {true, http.StatusOK},
	} {
		t.Run(name, func(t *testing.T) {
			h, err := server.New(server.Config{Store: failingStore{t: t}, Playground: c.playground})
			if err != nil {
				t.Fatal(err)
			}
			get := func(path string) (int, string, string) {
				w := newRecorder()
				h.ServeHTTP(w, newRequest(t, http.MethodGet, path, nil))
				return w.Code, w.Header().Get("Content-Type"), w.Body.String()
			}
			if code, _, body := get("/healthz"); code != http.StatusOK || strings.TrimSpace(body) != "ok" {
				t.Fatalf("GET /healthz: %d %q", code, body)
			}
			code, ctype, body := get("/")
			if code != c.wantRoot {
				t.Fatalf("GET /: status %d, want %d", code, c.wantRoot)
			}
			if c.playground && (!strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, "/graphql")) {
				t.Fatalf("GET /: %s %.200s", ctype, body)
			}
			if code, _, _ := get("/nothing-here"); code != http.StatusNotFound {
				t.Fatalf("GET /nothing-here: %d", code)
			}
		})
	}
	t.Run("NoStoreIsAnError", func(t *testing.T) {
		if _, err := server.New(server.Config{}); err == nil {
			t.Fatal("server.New without a store succeeded")
		}
	})
}

// TestHTTPCacheControl pins which answers a CDN or a browser may keep: anonymous GETs of
// persisted queries without errors, for server.DefaultPublicMaxAge; nothing else.
func TestHTTPCacheControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ev := e.createEvent(t, "Cached Show", t0.Add(time.Hour), threeMatchCard()...)
	player := e.token(t, "p-cache", "Cache")
	e.submit(t, player, ev, 0, 0, 0)
	const card = `query Card($id: ID!) { event(id: $id) { id name } prediction(eventId: $id) { points } }`
	register := func(t *testing.T) string { // APQ: send the text once with its hash
		t.Helper()
		sum := sha256.Sum256([]byte(card))
		hash := hex.EncodeToString(sum[:])
		_, resp := e.post(t, "", map[string]any{"query": card, "variables": map[string]any{"id": ev.ID},
			"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}}, nil)
		noErrors(t, resp.Errors)
		return hash
	}
	hash := register(t)
	get := func(t *testing.T, id string, persisted bool, header http.Header) *http.Response {
		t.Helper()
		q := url.Values{"variables": {`{"id":"` + id + `"}`}}
		if persisted {
			q.Set("extensions", `{"persistedQuery":{"version":1,"sha256Hash":"`+hash+`"}}`)
		} else {
			q.Set("query", card)
		}
		return e.do(t, http.MethodGet, "/graphql?"+q.Encode(), nil, header).Result()
	}
	public := "public, max-age=" + strconv.Itoa(int(server.DefaultPublicMaxAge/time.Second))
	for name, c := range map[string]struct {
		resp func(t *testing.T) *http.Response
		want string
	}{
		"AnonymousPersistedGET": {func(t *testing.T) *http.Response { return get(t, ev.ID, true, nil) }, public},
		"SignedIn": {func(t *testing.T) *http.Response {
			return get(t, ev.ID, true, http.Header{"Authorization": {"Bearer " + player}})
		}, "no-store"},
		"InvalidToken": {func(t *testing.T) *http.Response {
			return get(t, ev.ID, true, http.Header{"Authorization": {"Bearer not-a-token"}})
		}, "no-store"},
		"FullDocumentGET":   {func(t *testing.T) *http.Response { return get(t, ev.ID, false, nil) }, "no-store"},
		"AnswerWithAnError": {func(t *testing.T) *http.Response { return get(t, "not an id", true, nil) }, "no-store"},
		"POST": {func(t *testing.T) *http.Response {
			return e.do(t, http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ events { pageInfo { hasNextPage } } }"}`),
				http.Header{"Content-Type": {"application/json"}}).Result()
		}, "no-store"},
		"RefusedGET": {func(t *testing.T) *http.Response {
			return e.do(t, http.MethodGet, "/graphql?query="+url.QueryEscape("{ nope }"), nil, nil).Result()
		}, "no-store"},
	} {
		t.Run(name, func(t *testing.T) {
			resp := c.resp(t)
			if got := resp.Header.Get("Cache-Control"); got != c.want {
				t.Fatalf("Cache-Control %q, want %q (status %d)", got, c.want, resp.StatusCode)
			}
			if name != "POST" && !slices.Contains(resp.Header.Values("Vary"), "Authorization") {
				t.Fatalf("a GET answer without Vary: Authorization: %v", resp.Header)
			}
		})
	}
	t.Run("SignedInAnswerHoldsPrivateData", func(t *testing.T) {
		// Why signed-in answers are never public: the same URL answers differently.
		anon, _ := io.ReadAll(get(t, ev.ID, true, nil).Body)
		mine, _ := io.ReadAll(get(t, ev.ID, true, http.Header{"Authorization": {"Bearer " + player}}).Body)
		if string(anon) == string(mine) {
			t.Fatalf("the signed-in answer is the anonymous one: %s", mine)
		}
	})
	t.Run("NegativeMaxAgeMakesNothingPublic", func(t *testing.T) {
		e2 := newEnv(t, func(c *server.Config) { c.PublicMaxAge = -1 })
		w := e2.do(t, http.MethodGet, "/graphql?extensions="+url.QueryEscape(`{"persistedQuery":{"version":1,"sha256Hash":"`+hash+`"}}`), nil, nil)
		if got := w.Header().Get("Cache-Control"); got != "no-store" {
			t.Fatalf("Cache-Control %q", got)
		}
	})
}
