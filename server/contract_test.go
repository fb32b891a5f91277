package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/operations"
)

// TestContractOperations runs every document of package operations (the frontend's and the
// admin command's) through the real handler, in the order a season goes (build a card,
// pick, lock, enter results, score, read, moderate), and requires each to succeed with
// data. Every document must have a step here.
func TestContractOperations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.admin(t)
	player := e.token(t, "p-jo", "Jo")
	friend := e.token(t, "p-ki", "Ki")
	var league tLeague
	start := t0.Add(2 * time.Hour)
	var ev tEvent
	steps := []struct {
		op    string
		token func() string
		vars  func() map[string]any
		after func(t *testing.T, data json.RawMessage)
	}{
		{"admin-create-event", func() string { return admin }, func() map[string]any {
			return map[string]any{"input": map[string]any{"name": "AEW Dynasty", "startsAt": start.Format(time.RFC3339), "matches": threeMatchCard(),
				"tiebreaker": "How many minutes will the main event last?"}}
		}, func(t *testing.T, data json.RawMessage) {
			var d struct{ CreateEvent tEvent }
			_ = json.Unmarshal(data, &d)
			ev = d.CreateEvent
			if len(ev.Matches) != 3 {
				t.Fatalf("card %+v", ev)
			}
		}},
		{"register", func() string { return player }, func() map[string]any { return map[string]any{"name": "Jo Nakamura"} }, nil},
		{"submit-prediction", func() string { return player }, func() map[string]any {
			return map[string]any{"eventId": ev.ID, "picks": picks(ev, 0, 1, 0)}
		}, nil},
		{"event-list", func() string { return "" }, func() map[string]any { return map[string]any{"first": 10, "season": 2030} }, nil},
		{"event-card", func() string { return player }, func() map[string]any { return map[string]any{"id": ev.ID} }, func(t *testing.T, data json.RawMessage) {
			var d struct{ Prediction *tPrediction }
			_ = json.Unmarshal(data, &d)
			if d.Prediction == nil || len(d.Prediction.Picks) != 3 {
				t.Fatalf("my picks %s", data)
			}
		}},
		{"admin-lock-event", func() string { return admin }, func() map[string]any { return map[string]any{"id": ev.ID} }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), `"state":"BROADCAST","locked":true`) {
				t.Fatalf("locked %s", data)
			}
		}},
		{"admin-set-result", func() string { return admin }, func() map[string]any {
			// Results go in once the event has started: the first two through setWinners,
			// the third through this file.
			e.clock.Set(start.Add(time.Hour))
			e.setWinners(t, ev, 0, 1)
			return map[string]any{"eventId": ev.ID, "matchId": ev.Matches[2].ID, "result": map[string]any{"outcome": "WIN", "winner": 0}}
		}, nil},
		{"admin-set-tiebreaker-answer", func() string { return admin }, func() map[string]any { return map[string]any{"eventId": ev.ID, "answer": 22} }, nil},
		{"admin-score-event", func() string { return admin }, func() map[string]any { return map[string]any{"eventId": ev.ID} }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), `"predictionsScored":1`) {
				t.Fatalf("report %s", data)
			}
		}},
		{"scored-event", func() string { return "" }, func() map[string]any { return map[string]any{"id": ev.ID} }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), `"rank":1,"place":1,"user":{"id":"p-jo","name":"Jo Nakamura"},"points":20`) ||
				!strings.Contains(string(data), `"tiebreaker":{"question":"How many minutes will the main event last?","answer":22}`) {
				t.Fatalf("leaderboard %s", data)
			}
		}},
		{"standings", func() string { return "" }, func() map[string]any { return map[string]any{"season": 2030} }, nil},
		{"admin-standings", func() string { return admin }, func() map[string]any { return map[string]any{"season": 2030, "first": 10} }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), `"rank":1,"user":{"id":"p-jo"`) {
				t.Fatalf("standings %s", data)
			}
		}},
		{"profile", func() string { return "" }, func() map[string]any { return map[string]any{"id": "p-jo"} }, nil},
		{"admin-event", func() string { return admin }, func() map[string]any { return map[string]any{"id": ev.ID} }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), `"result":{"outcome":"WIN","winner":0,"method":null}`) {
				t.Fatalf("card %s", data)
			}
		}},
		{"admin-events", func() string { return admin }, func() map[string]any { return map[string]any{"first": 5, "season": 2030} }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), ev.ID) {
				t.Fatalf("events %s", data)
			}
		}},
		{"admin-audit-log", func() string { return admin }, func() map[string]any { return map[string]any{"eventId": ev.ID, "first": 50} }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), `"action":"scoreEvent"`) {
				t.Fatalf("audit log %s", data)
			}
		}},
		{"me", func() string { return player }, func() map[string]any { return nil }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), `"name":"Jo Nakamura"`) {
				t.Fatalf("me %s", data)
			}
		}},
		// Leagues: Jo creates one, Ki looks at the invite and joins, Jo reads the table.
		{"create-league", func() string { return player }, func() map[string]any { return map[string]any{"name": "Dojo"} }, func(t *testing.T, data json.RawMessage) {
			var d struct{ CreateLeague tLeague }
			_ = json.Unmarshal(data, &d)
			if league = d.CreateLeague; league.InviteCode == nil {
				t.Fatalf("league %s", data)
			}
		}},
		{"league-by-invite", func() string { return friend }, func() map[string]any { return map[string]any{"inviteCode": *league.InviteCode} }, nil},
		{"join-league", func() string { return friend }, func() map[string]any { return map[string]any{"inviteCode": *league.InviteCode} }, nil},
		{"league-standings", func() string { return player }, func() map[string]any { return map[string]any{"id": league.ID, "season": 2030} }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), `"rank":1,"user":{"id":"p-jo","name":"Jo Nakamura"},"points":20`) || !strings.Contains(string(data), `"memberCount":2`) {
				t.Fatalf("league %s", data)
			}
		}},
		{"my-leagues", func() string { return friend }, func() map[string]any { return nil }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), `"name":"Dojo"`) {
				t.Fatalf("my leagues %s", data)
			}
		}},
		{"rotate-invite-code", func() string { return player }, func() map[string]any { return map[string]any{"id": league.ID} }, nil},
		{"admin-player-leagues", func() string { return admin }, func() map[string]any { return map[string]any{"id": "p-jo"} }, func(t *testing.T, data json.RawMessage) {
			if !strings.Contains(string(data), `"name":"Dojo"`) {
				t.Fatalf("leagues %s", data)
			}
		}},
		{"admin-rename-league", func() string { return admin }, func() map[string]any { return map[string]any{"id": league.ID, "name": "Dojo Two"} }, nil},
		{"admin-rename-player", func() string { return admin }, func() map[string]any { return map[string]any{"id": "p-jo", "name": "Jo Two"} }, nil},
		{"leave-league", func() string { return friend }, func() map[string]any { return map[string]any{"id": league.ID} }, nil},
		{"admin-delete-league", func() string { return admin }, func() map[string]any { return map[string]any{"id": league.ID} }, nil},
	}
	var covered []string
	for _, s := range steps {
		covered = append(covered, s.op)
		t.Run(s.op, func(t *testing.T) {
			resp := e.request(t, s.token(), operations.Text(s.op), s.vars())
			noErrors(t, resp.Errors)
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(resp.Data, &fields); err != nil || len(fields) == 0 {
				t.Fatalf("data %s", resp.Data)
			}
			for name, v := range fields {
				if string(v) == "null" {
					t.Fatalf("%s is null: %s", name, resp.Data)
				}
			}
			if s.after != nil {
				s.after(t, resp.Data)
			}
		})
	}
	for _, name := range operations.Names() {
		if !slices.Contains(covered, name) {
			t.Errorf("operations/%s.graphql has no step in TestContractOperations", name)
		}
	}
}
