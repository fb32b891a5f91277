package gqlexec

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/bench/frontend"
	"github.com/pickem/api/server"
)

// screen is one frontend request: its document, variables and caller.
type screen struct {
	name   string
	req    frontend.Request
	caller auth.Identity
	rows   func(resp map[string]any) int // rows of the screen's main list, to check the answer
}

var (
	player = auth.Identity{ID: "u00003", Name: "Player 3"}
	admin  = auth.Identity{ID: "admin", Name: "Admin", Groups: []string{auth.AdminGroup}}
)

func edges(resp map[string]any, path ...string) int {
	var v any = resp["data"]
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	m, _ := v.(map[string]any)
	list, _ := m["edges"].([]any)
	return len(list)
}

func screens(s *Store) []screen {
	var ps []frontend.Pick
	for i, m := range s.CardMatches() {
		ps = append(ps, frontend.Pick{MatchID: m.ID, Team: i % len(m.Teams)})
	}
	return []screen{
		{"Screen1EventList20", frontend.Request{Query: frontend.EventList, Variables: map[string]any{"first": 20}}, auth.Identity{},
			func(r map[string]any) int { return edges(r, "events") }},
		{"Screen2EventCardMyPicks", frontend.Request{Query: frontend.EventCard, Variables: map[string]any{"id": s.CardEventID()}}, player,
			func(r map[string]any) int {
				ev, _ := r["data"].(map[string]any)["event"].(map[string]any)
				ms, _ := ev["matches"].([]any)
				return len(ms)
			}},
		{"Screen3ScoredEventTop50", frontend.Request{Query: frontend.ScoredEvent, Variables: map[string]any{"id": s.ScoredEventID(), "first": 50}}, player,
			func(r map[string]any) int { return edges(r, "event", "leaderboard") }},
		{"Screen4Standings50", frontend.Request{Query: frontend.Standings, Variables: map[string]any{"season": Season, "first": 50}}, auth.Identity{},
			func(r map[string]any) int { return edges(r, "standings") }},
		{"Screen4Standings100", frontend.Request{Query: frontend.Standings, Variables: map[string]any{"season": Season, "first": 100}}, auth.Identity{},
			func(r map[string]any) int { return edges(r, "standings") }},
		{"Screen5Profile", frontend.Request{Query: frontend.Profile, Variables: map[string]any{"id": "u00007"}}, player,
			func(r map[string]any) int { return edges(r, "user", "predictions") }},
		{"Screen6SubmitPrediction", frontend.Request{Query: frontend.SubmitPrediction, Variables: map[string]any{"eventId": s.CardEventID(), "picks": ps}}, player,
			func(r map[string]any) int {
				p, _ := r["data"].(map[string]any)["submitPrediction"].(map[string]any)
				list, _ := p["picks"].([]any)
				return len(list)
			}},
		{"Screen8LeagueStandings50", frontend.Request{Query: frontend.LeagueStandings, Variables: map[string]any{"id": LeagueID, "season": Season, "first": 50}}, player,
			func(r map[string]any) int { return edges(r, "league", "standings") }},
		{"Screen7ScoreEvent", frontend.Request{Query: frontend.ScoreEvent, Variables: map[string]any{"eventId": s.ScoredEventID()}}, admin,
			func(r map[string]any) int {
				if r["data"].(map[string]any)["scoreEvent"] == nil {
					return 0
				}
				return 1
			}},
	}
}

var wantRows = map[string]int{
	"Screen1EventList20": 20, "Screen2EventCardMyPicks": 10, "Screen3ScoredEventTop50": 50,
	"Screen4Standings50": 50, "Screen4Standings100": 100, "Screen5Profile": 20,
	"Screen6SubmitPrediction": 10, "Screen7ScoreEvent": 1, "Screen8LeagueStandings50": 50,
}

func newHandler(s *Store) http.Handler {
	now := time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC)
	return server.NewGraphQL(server.Config{Store: s, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// do runs one request through h and returns the recorder.
func do(h http.Handler, body []byte, caller auth.Identity) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r = r.WithContext(auth.WithIdentity(context.Background(), caller))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestScreensAnswerWithoutErrors(t *testing.T) {
	s := NewStore()
	h := newHandler(s)
	for _, sc := range screens(s) {
		t.Run(sc.name, func(t *testing.T) {
			body, err := json.Marshal(sc.req)
			if err != nil {
				t.Fatal(err)
			}
			w := do(h, body, sc.caller)
			var resp map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
				t.Fatalf("status %d, body %s: %v", w.Code, w.Body, err)
			}
			if w.Code != http.StatusOK || resp["errors"] != nil {
				t.Fatalf("status %d, body %s", w.Code, w.Body)
			}
			if got := sc.rows(resp); got != wantRows[sc.name] {
				t.Fatalf("rows = %d, want %d; body %s", got, wantRows[sc.name], w.Body)
			}
		})
	}
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGraphQL measures one request per screen through the gqlgen handler alone, with
// the process's GC settings (Go's defaults unless GOGC/GOMEMLIMIT are set).
func BenchmarkGraphQL(b *testing.B) { benchmarkScreens(b) }

// BenchmarkGraphQLDeployedGC is BenchmarkGraphQL with the GC settings the Lambda function
// is deployed with (GOGC and GOMEMLIMIT in deploy/template.yaml).
func BenchmarkGraphQLDeployedGC(b *testing.B) {
	gc, err := DeployedGC(filepath.Join("..", "..", "deploy", "template.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	defer gc.Apply()()
	benchmarkScreens(b)
}

func benchmarkScreens(b *testing.B) {
	s := NewStore()
	h := newHandler(s)
	for _, sc := range screens(s) {
		body, err := json.Marshal(sc.req)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(sc.name, func(b *testing.B) {
			if w := do(h, body, sc.caller); w.Code != http.StatusOK || bytes.Contains(w.Body.Bytes(), []byte(`"errors"`)) {
				b.Fatalf("status %d, body %s", w.Code, w.Body)
			}
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				do(h, body, sc.caller)
			}
			// CPU time is steadier than wall time on a shared machine; with the
			// per-element goroutines it can exceed wall time on 2 cores.
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
