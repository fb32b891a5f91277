package server_test

import (
	"encoding/json"
	"testing"
	"time"
)

// gameEvent is an event as the game's fields show it.
type gameEvent struct {
	ID               string
	Jokers           bool
	PerfectCardBonus int
	Tiebreaker       *struct {
		Question string
		Answer   *int
	}
	Matches []struct {
		ID           string
		Points       int
		MethodPoints int
		Result       *struct {
			Outcome string
			Winner  *int
			Method  *string
		}
	}
	Leaderboard struct {
		Edges []struct {
			Node struct {
				User        struct{ ID string }
				Points      int
				Rank, Place int
			}
		}
	}
}

const gameEventOp = `query($id: ID!) { event(id: $id) {
  id jokers perfectCardBonus tiebreaker { question answer }
  matches { id points methodPoints result { outcome winner method } }
  leaderboard(first: 10) { edges { node { user { id } points rank place } } }
} }`

const gamePredictionOp = `query($e: ID!, $u: ID) { prediction(eventId: $e, userId: $u) {
  joker tiebreaker perfectCard points correct picks { matchId team method points correct }
} }`

type gamePrediction struct {
	Joker       *string
	Tiebreaker  *int
	PerfectCard *bool
	Points      *int
	Correct     *int
	Picks       []struct {
		MatchID string
		Team    int
		Method  *string
		Points  *int
		Correct *bool
	}
}

// TestGameThroughTheAPI plays the worked example through GraphQL: the settings and
// method points on createEvent, a submit with a method, a joker and a guess, results with a
// method, the tie-breaker's answer, scoring, and what each screen reads back; then the
// refusals, each with its code and nothing changed.
func TestGameThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	admin := e.admin(t)
	start := e.clock.Now().Add(2 * time.Hour)
	in := map[string]any{
		"name": "Game Night", "startsAt": start.Format(time.RFC3339),
		"jokers": true, "perfectCardBonus": 25, "tiebreaker": "How many minutes will the main event last?",
		"matches": []map[string]any{
			{"name": "M1", "points": 10, "methodPoints": 5, "teams": []any{map[string]any{"members": []string{"A"}}, map[string]any{"members": []string{"B"}}}},
			{"name": "M2", "points": 20, "teams": []any{map[string]any{"members": []string{"C"}}, map[string]any{"members": []string{"D"}}}},
			{"name": "M3", "points": 30, "teams": []any{map[string]any{"members": []string{"E"}}, map[string]any{"members": []string{"F"}}}},
		},
	}
	ev := mustGQL[struct{ CreateEvent gameEvent }](t, e, admin,
		`mutation($in: EventInput!) { createEvent(input: $in) { id jokers perfectCardBonus tiebreaker { question answer } matches { id points methodPoints } } }`,
		map[string]any{"in": in}).CreateEvent
	if !ev.Jokers || ev.PerfectCardBonus != 25 || ev.Tiebreaker == nil || ev.Tiebreaker.Answer != nil || ev.Matches[0].MethodPoints != 5 {
		t.Fatalf("createEvent answered %+v", ev)
	}
	m1, m2, m3 := ev.Matches[0].ID, ev.Matches[1].ID, ev.Matches[2].ID
	submit := `mutation($e: ID!, $picks: [PickInput!]!, $joker: ID, $guess: Int) {
  submitPrediction(eventId: $e, picks: $picks, joker: $joker, tiebreaker: $guess) { joker tiebreaker picks { matchId method } } }`
	players := map[string]string{"p-ace": e.token(t, "p-ace", "Ace"), "p-bea": e.token(t, "p-bea", "Bea")}
	ace := players["p-ace"]
	entry := map[string]any{"e": ev.ID, "joker": m2, "guess": 30, "picks": []map[string]any{
		{"matchId": m1, "team": 0, "method": "PINFALL"}, {"matchId": m2, "team": 1}, {"matchId": m3, "team": 0}}}
	mustGQL[json.RawMessage](t, e, ace, submit, entry)
	// Bea: the same picks without the joker and a guess of 40 (further from the answer).
	mustGQL[json.RawMessage](t, e, players["p-bea"], submit, map[string]any{"e": ev.ID, "guess": 40, "picks": []map[string]any{
		{"matchId": m1, "team": 0, "method": "SUBMISSION"}, {"matchId": m2, "team": 1}, {"matchId": m3, "team": 0}}})

	t.Run("Refusals", func(t *testing.T) {
		for name, vars := range map[string]map[string]any{
			"MethodOnAMatchWithoutMethodPoints": {"e": ev.ID, "picks": []map[string]any{{"matchId": m2, "team": 0, "method": "PINFALL"}}},
			"JokerNotPicked":                    {"e": ev.ID, "joker": m3, "picks": []map[string]any{{"matchId": m2, "team": 0}}},
			"GuessOutOfRange":                   {"e": ev.ID, "guess": 1000001, "picks": []map[string]any{{"matchId": m2, "team": 0}}},
		} {
			t.Run(name, func(t *testing.T) {
				wantCode(t, e.request(t, ace, submit, vars).Errors, "BAD_USER_INPUT")
				p := mustGQL[struct{ Prediction gamePrediction }](t, e, ace, gamePredictionOp, map[string]any{"e": ev.ID}).Prediction
				if p.Joker == nil || *p.Joker != m2 || p.Tiebreaker == nil || *p.Tiebreaker != 30 || len(p.Picks) != 3 {
					t.Fatalf("the prediction changed: %+v", p)
				}
			})
		}
		t.Run("AnswerWhileOpen", func(t *testing.T) {
			wantCode(t, e.request(t, admin, `mutation($e: ID!) { setTiebreakerAnswer(eventId: $e, answer: 30) { id } }`,
				map[string]any{"e": ev.ID}).Errors, "BAD_USER_INPUT")
		})
		t.Run("PlaceOffTheLeaderboard", func(t *testing.T) {
			wantCode(t, e.request(t, ace, `query($e: ID!) { prediction(eventId: $e) { place } }`, map[string]any{"e": ev.ID}).Errors, "BAD_USER_INPUT")
		})
		t.Run("SettingsOfAPredictionsEvent", func(t *testing.T) {
			wantCode(t, e.request(t, ace, `query($e: ID!) { prediction(eventId: $e) { event { jokers } } }`, map[string]any{"e": ev.ID}).Errors, "BAD_USER_INPUT")
		})
	})

	t.Run("HiddenFromOthersWhileOpen", func(t *testing.T) {
		wantCode(t, e.request(t, players["p-bea"], gamePredictionOp, map[string]any{"e": ev.ID, "u": "p-ace"}).Errors, "FORBIDDEN")
	})

	// The show: results with a method, the answer (28: Ace's 30 is closer than Bea's 40), a final pass.
	e.clock.Set(start.Add(time.Hour))
	for i, r := range []map[string]any{
		{"outcome": "WIN", "winner": 0, "method": "PINFALL"}, {"outcome": "WIN", "winner": 1}, {"outcome": "NO_CONTEST"},
	} {
		mustGQL[json.RawMessage](t, e, admin, setResultOp, map[string]any{"e": ev.ID, "m": ev.Matches[i].ID, "r": r})
	}
	wantCode(t, e.request(t, admin, setResultOp, map[string]any{"e": ev.ID, "m": m3, "r": map[string]any{"outcome": "DRAW", "method": "PINFALL"}}).Errors, "BAD_USER_INPUT")
	mustGQL[json.RawMessage](t, e, admin, `mutation($e: ID!) { setTiebreakerAnswer(eventId: $e, answer: 28) { id } }`, map[string]any{"e": ev.ID})
	e.score(t, ev.ID, false)

	got := mustGQL[struct{ Event gameEvent }](t, e, "", gameEventOp, map[string]any{"id": ev.ID}).Event
	if got.Tiebreaker == nil || got.Tiebreaker.Answer == nil || *got.Tiebreaker.Answer != 28 {
		t.Fatalf("tiebreaker %+v, want the answer 28 counted", got.Tiebreaker)
	}
	if r := got.Matches[0].Result; r == nil || r.Method == nil || *r.Method != "PINFALL" {
		t.Fatalf("M1's result %+v, want WIN by PINFALL", r)
	}
	// Ace: M1 15 (method right), M2 40 (joker right), M3 0 (void), +25 perfect card = 80.
	// Bea: M1 10 (method wrong), M2 20, M3 0, +25 = 55.
	rows := got.Leaderboard.Edges
	if len(rows) != 2 || rows[0].Node.User.ID != "p-ace" || rows[0].Node.Points != 80 || rows[1].Node.Points != 55 ||
		rows[0].Node.Place != 1 || rows[1].Node.Place != 2 || rows[1].Node.Rank != 2 {
		t.Fatalf("leaderboard %+v, want Ace 80 (place 1), Bea 55 (rank and place 2)", rows)
	}
	p := mustGQL[struct{ Prediction gamePrediction }](t, e, players["p-bea"], gamePredictionOp, map[string]any{"e": ev.ID, "u": "p-ace"}).Prediction
	if p.Points == nil || *p.Points != 80 || p.Correct == nil || *p.Correct != 2 || p.PerfectCard == nil || !*p.PerfectCard ||
		p.Joker == nil || *p.Joker != m2 || p.Tiebreaker == nil || *p.Tiebreaker != 30 {
		t.Fatalf("Ace's prediction read by Bea after the show: %+v", p)
	}
	wantPick := map[string]int{m1: 15, m2: 40, m3: 0}
	for _, pk := range p.Picks {
		if pk.Points == nil || *pk.Points != wantPick[pk.MatchID] {
			t.Errorf("pick on %s: points %v, want %d", pk.MatchID, deref(pk.Points), wantPick[pk.MatchID])
		}
	}
}
