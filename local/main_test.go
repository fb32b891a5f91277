package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRunServesDemoData boots the local server the way `go run ./local` does (embedded
// engine, demo data, random dev secret) on a free port, queries the demo data over HTTP
// with the printed tokens, then cancels its context and expects a clean shutdown.
func TestRunServesDemoData(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	env := map[string]string{} // no DYNAMODB_ENDPOINT: the embedded engine
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"-addr", "127.0.0.1:0"}, func(k string) string { return env[k] }, pw)
		pw.Close()
		done <- err
	}()
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()

	// Read the banner: the address, then the two tokens.
	var base, playerTok, adminTok string
	timeout := time.After(60 * time.Second)
	for adminTok == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("run stopped printing before the tokens: %v", <-done)
			}
			switch {
			case strings.HasPrefix(line, "Pick'Em API listening on "):
				base = strings.TrimPrefix(line, "Pick'Em API listening on ")
			case strings.Contains(line, "player:"):
				playerTok = bearer(t, line)
			case strings.Contains(line, "admin:"):
				adminTok = bearer(t, line)
			}
		case err := <-done:
			t.Fatalf("run returned before serving: %v", err)
		case <-timeout:
			t.Fatal("no banner within 60 s")
		}
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") || strings.HasSuffix(base, ":0") || playerTok == "" {
		t.Fatalf("banner: base %q, player token %q", base, playerTok)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	gql := func(t *testing.T, token, query string, vars map[string]any, out any) map[string]json.RawMessage {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("POST /graphql: %v", err)
		}
		defer resp.Body.Close()
		var r struct {
			Data       json.RawMessage
			Errors     []json.RawMessage
			Extensions map[string]json.RawMessage
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if resp.StatusCode != http.StatusOK || len(r.Errors) > 0 {
			t.Fatalf("status %d, errors %s", resp.StatusCode, r.Errors)
		}
		if err := json.Unmarshal(r.Data, out); err != nil {
			t.Fatalf("data %s: %v", r.Data, err)
		}
		return r.Extensions
	}
	get := func(t *testing.T, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	type event struct {
		ID     string
		Name   string
		Season int
		State  string
	}
	var scored, upcoming event
	t.Run("HealthzAndPlayground", func(t *testing.T) {
		if code, body := get(t, "/healthz"); code != http.StatusOK || strings.TrimSpace(body) != "ok" {
			t.Fatalf("GET /healthz: %d %q", code, body)
		}
		if code, body := get(t, "/"); code != http.StatusOK || !strings.Contains(body, "/graphql") {
			t.Fatalf("GET /: %d", code)
		}
	})
	t.Run("EventsIncludeScoredAndUpcoming", func(t *testing.T) {
		var d struct {
			Events struct{ Edges []struct{ Node event } }
		}
		gql(t, "", `{ events { edges { node { id name season state } } } }`, nil, &d)
		for _, e := range d.Events.Edges {
			switch e.Node.State {
			case "SCORED":
				if scored.ID == "" {
					scored = e.Node
				}
			case "UPCOMING":
				upcoming = e.Node
			}
		}
		if scored.ID == "" || upcoming.ID == "" {
			t.Fatalf("events %+v: want a SCORED and an UPCOMING one", d.Events.Edges)
		}
	})
	if scored.ID == "" || upcoming.ID == "" {
		t.FailNow()
	}
	t.Run("ScoredEventHasLeaderboard", func(t *testing.T) {
		var d struct {
			Event struct {
				Matches     []struct{ ID string }
				Leaderboard struct {
					Edges []struct{ Node struct{ Rank *int } }
				}
			}
		}
		ext := gql(t, "", `query($id: ID!) { event(id: $id) { matches { id } leaderboard { edges { node { rank } } } } }`,
			map[string]any{"id": scored.ID}, &d)
		if len(d.Event.Matches) == 0 || len(d.Event.Leaderboard.Edges) == 0 || *d.Event.Leaderboard.Edges[0].Node.Rank != 1 {
			t.Fatalf("event %+v", d.Event)
		}
		// The embedded engine reports no capacity: null, not 0.
		var cost struct {
			Calls             int
			ReadCapacityUnits *float64
		}
		if err := json.Unmarshal(ext["dynamodb"], &cost); err != nil || cost.Calls != 1 || cost.ReadCapacityUnits != nil {
			t.Fatalf("extensions.dynamodb = %s", ext["dynamodb"])
		}
	})
	t.Run("StandingsOfTheScoredSeason", func(t *testing.T) {
		var d struct {
			Standings struct {
				Edges []struct{ Node struct{ Rank, Points int } }
			}
		}
		gql(t, "", `query($s: Int!) { standings(season: $s) { edges { node { rank points } } } }`, map[string]any{"s": scored.Season}, &d)
		if len(d.Standings.Edges) == 0 || d.Standings.Edges[0].Node.Rank != 1 {
			t.Fatalf("standings of %d: %+v", scored.Season, d.Standings.Edges)
		}
	})
	t.Run("PlayerTokenIsTheDemoPlayer", func(t *testing.T) {
		var d struct{ Me struct{ ID, Name string } }
		gql(t, playerTok, `{ me { id name } }`, nil, &d)
		if d.Me.ID != "demo-player" || d.Me.Name != "Demo Player" {
			t.Fatalf("me = %+v", d.Me)
		}
	})
	t.Run("AdminTokenScoresDryRun", func(t *testing.T) {
		var d struct {
			ScoreEvent struct {
				EventID           string
				DryRun            bool
				PredictionsScored int
			}
		}
		gql(t, adminTok, `mutation($e: ID!) { scoreEvent(eventId: $e, dryRun: true) { eventId dryRun predictionsScored } }`,
			map[string]any{"e": scored.ID}, &d)
		if d.ScoreEvent.EventID != scored.ID || !d.ScoreEvent.DryRun || d.ScoreEvent.PredictionsScored != 0 {
			t.Fatalf("scoreEvent = %+v", d.ScoreEvent)
		}
	})

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after cancel, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return within 30 s of cancel")
	}
}

// bearer extracts the token from a banner line `  admin:  {"Authorization": "Bearer <tok>"}`.
func bearer(t *testing.T, line string) string {
	t.Helper()
	_, rest, ok := strings.Cut(line, "{")
	var h map[string]string
	if !ok || json.Unmarshal([]byte("{"+rest), &h) != nil || !strings.HasPrefix(h["Authorization"], "Bearer ") {
		t.Fatalf("banner line %q is not a pasteable header", line)
	}
	return strings.TrimPrefix(h["Authorization"], "Bearer ")
}

// TestRunRejectsBadConfiguration: configuration and flag errors come back from run before
// anything starts.
func TestRunRejectsBadConfiguration(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		env  map[string]string
	}{
		"UnknownFlag":    {[]string{"-nope"}, nil},
		"BadBool":        {nil, map[string]string{"PICKEM_COST_EXTENSION": "maybe"}},
		"HalfCognito":    {nil, map[string]string{"COGNITO_USER_POOL_ID": "us-east-1_abc"}},
		"AddressInvalid": {[]string{"-addr", "256.0.0.1:http-nope", "-seed=false"}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			if err := run(ctx, c.args, func(k string) string { return c.env[k] }, io.Discard); err == nil {
				t.Fatal("run returned nil")
			}
		})
	}
}
