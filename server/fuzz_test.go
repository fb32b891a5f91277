package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/bench/gqlexec"
	"github.com/pickem/api/internal/hostile"
	"github.com/pickem/api/operations"
	"github.com/pickem/api/server"
)

// fuzzHandler is the whole API over gqlexec's canned in-memory store, introspection on
// (the local default: more to reach).
func fuzzHandler(f *testing.F) http.Handler {
	f.Helper()
	now := time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC)
	h, err := server.New(server.Config{Store: gqlexec.NewStore(), Introspection: true, Now: func() time.Time { return now },
		Verifier: auth.NewHS256([]byte("fuzz-secret-0123456789abcdef0123456789")),
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	return h
}

// checkAnswer fails unless w is a JSON answer below 500 whose every error has a code
// other than INTERNAL (the canned store never fails a read, and signed-out callers never
// reach a write).
func checkAnswer(t *testing.T, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code >= 500 {
		t.Fatalf("status %d: %.300s", w.Code, w.Body)
	}
	if w.Code == http.StatusNoContent {
		return
	}
	var r struct {
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil {
		t.Fatalf("status %d, body is not JSON: %.300s", w.Code, w.Body)
	}
	for _, e := range r.Errors {
		code, _ := e.Extensions["code"].(string)
		if code == "" || code == "INTERNAL" {
			t.Fatalf("error without a code or INTERNAL: %.300s", w.Body)
		}
		if len(e.Message) > 1100 {
			t.Fatalf("a %d-byte message", len(e.Message))
		}
	}
	if w.Code != http.StatusOK && len(r.Errors) == 0 {
		t.Fatalf("status %d without errors: %.300s", w.Code, w.Body)
	}
}

func fuzzSeeds(f *testing.F) {
	for _, doc := range operations.Frontend() {
		f.Add(doc, `{"id": "2025-07-06-event-00", "first": 5, "season": 2025}`)
	}
	for _, shape := range hostile.Shapes() {
		r := shape.Build(0)
		vars, _ := json.Marshal(r.Variables)
		f.Add(r.Query, string(vars))
	}
	f.Add("{ me { id } }", "")
	f.Add(`query($n: Int) { events(first: $n) { edges { cursor } } }`, `{"n": 4611686018427387904}`)
	f.Add(`{ event(id: "x") { leaderboard(after: "AAAA") { edges { cursor } } } }`, `null`)
	f.Add("fragment F on Query { ...F } { ...F }", "{}")
}

// FuzzHandler sends random documents and variables through the whole handler, over POST
// and GET: never a 5xx, a panic or an answer without codes. (go test -fuzz reports an
// input that runs for more than 10 s as a hang.)
func FuzzHandler(f *testing.F) {
	h := fuzzHandler(f)
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, query, variables string) {
		body := map[string]any{"query": query}
		if json.Valid([]byte(variables)) {
			body["variables"] = json.RawMessage(variables)
		}
		b, _ := json.Marshal(body)
		r := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(b))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		checkAnswer(t, w)

		r = httptest.NewRequest(http.MethodGet, "/graphql?query="+url.QueryEscape(query)+"&variables="+url.QueryEscape(variables), nil)
		w = httptest.NewRecorder()
		h.ServeHTTP(w, r)
		checkAnswer(t, w)
	})
}

// FuzzHandlerBody sends random bytes as a POST body with a random content type.
func FuzzHandlerBody(f *testing.F) {
	h := fuzzHandler(f)
	f.Add([]byte(`{"query": "{ events { edges { cursor } } }"}`), "application/json")
	f.Add([]byte(`[{"query": "{ me { id } }"}]`), "application/json")
	f.Add([]byte(`{"query": "{ me { id } }", "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "00"}}}`), "application/json; charset=utf-8")
	f.Add([]byte("query=%7B+me+%7B+id+%7D+%7D"), "application/x-www-form-urlencoded")
	f.Add([]byte(`{"query": "{ me { id } }"}{}`), "application/json")
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		r := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		r.Header.Set("Content-Type", ctype)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		checkAnswer(t, w)
	})
}
