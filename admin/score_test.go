package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// scoreAPI answers scoreEvent with the given answers in turn (a report, or an error code).
type scoreAPI struct {
	mu      sync.Mutex
	answers []any
	calls   int
}

func (s *scoreAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	a := s.answers[min(s.calls, len(s.answers)-1)]
	s.calls++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if code, ok := a.(string); ok {
		_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": "busy", "extensions": map[string]any{"code": code}}}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"scoreEvent": a}})
}

func TestScoreCallsUntilComplete(t *testing.T) {
	old := scoreIdleWait
	scoreIdleWait = time.Millisecond
	defer func() { scoreIdleWait = old }()
	rep := func(scored, remaining int, complete bool) scoreReport {
		return scoreReport{EventID: "2026-01-01-e", PredictionsScored: scored, StandingsChanged: scored, Transactions: (scored + 49) / 50, Remaining: remaining, Complete: complete, ScoredMatches: 3}
	}
	answers := []any{rep(100, 150, false), "CONFLICT", rep(100, 50, false), rep(0, 50, false), rep(50, 0, true)}

	t.Run("PlainLines", func(t *testing.T) {
		api := &scoreAPI{answers: answers}
		srv := httptest.NewServer(api)
		defer srv.Close()
		var out bytes.Buffer
		if err := scoreUntilComplete(t.Context(), newClient(srv.URL, "tok"), "2026-01-01-e", &out, false); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"call 1: wrote 100 predictions and 100 standings in 2 transactions; 150 remaining\n",
			"call 2: CONFLICT: busy: calling again\n",
			"call 5: wrote 50 predictions and 50 standings in 1 transactions; 0 remaining\n",
			"  predictions scored  250\n", "  calls               5\n",
			"  matches counted     3 (provisional: matches without a result remain, the event stays BROADCAST)\n",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
		if api.calls != 5 {
			t.Errorf("%d calls, want 5", api.calls)
		}
	})

	t.Run("ProgressBarOnATerminal", func(t *testing.T) {
		srv := httptest.NewServer(&scoreAPI{answers: answers})
		defer srv.Close()
		var out bytes.Buffer
		if err := scoreUntilComplete(t.Context(), newClient(srv.URL, "tok"), "2026-01-01-e", &out, true); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"\r[############..................] 100/250 predictions (call 1)", "\r[##############################] 250/250 predictions (call 5)\n"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%q", want, out.String())
			}
		}
	})

	t.Run("GivesUpOnRepeatedErrors", func(t *testing.T) {
		srv := httptest.NewServer(&scoreAPI{answers: []any{"UNAVAILABLE"}})
		defer srv.Close()
		err := scoreUntilComplete(t.Context(), newClient(srv.URL, "tok"), "2026-01-01-e", &bytes.Buffer{}, false)
		if ge, ok := err.(gqlErrors); !ok || !ge.has("UNAVAILABLE") {
			t.Fatalf("err = %v, want the UNAVAILABLE error after %d attempts", err, maxFailedCalls+1)
		}
	})
}
